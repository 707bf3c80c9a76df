/**
 * Loading the shipped base policy in Node: `public/base/<stem>.json` (core/pretrain/base.ts `baseStem`) and its
 * weights, checked against the code (vocabulary hash, env version) and the manifest (size, sha256).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EnvSpec } from '../src/core/envs/types';
import type { Tokenizer } from '../src/core/tokenizer/tokenizer';
import { baseManifestPath, checkBaseManifest, checkBaseWeights, type BaseManifest } from '../src/core/pretrain/base';

/**
 * Folder holding the app's static files, whose `base/` holds the shipped base policies: the repository's `public/`,
 * or the folder the environment variable `OPD_PUBLIC_DIR` names (a folder of one's own base policies; an empty one
 * shows what a user meets where none ships).
 */
export const PUBLIC_DIR = process.env.OPD_PUBLIC_DIR
  ? path.resolve(process.env.OPD_PUBLIC_DIR)
  : path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'public');

/**
 * Read and check the base policy for an env and preset, from `publicDir` (default the repository's `public/`).
 * `alternative`, the command's other way on when there is none (train: `pass --init scratch …`), ends the message
 * for a missing base policy after the pretrain command that makes one.
 * @throws Error saying which file is missing or what does not match, and how to regenerate it.
 */
export async function loadBaseFiles(
  spec: EnvSpec,
  preset: string,
  tok: Tokenizer,
  publicDir = PUBLIC_DIR,
  alternative = '',
): Promise<{ manifest: BaseManifest; bytes: Uint8Array; path: string }> {
  const mPath = path.join(publicDir, baseManifestPath(spec, preset));
  if (!fs.existsSync(mPath))
    throw new Error(
      `no base policy for ${spec.name}/${preset} (${path.relative(process.cwd(), mPath)} is missing); ` +
        `make one with npm run pretrain -- --env ${spec.name} --preset ${preset}` +
        (alternative ? `, or ${alternative}` : ''),
    );
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(mPath, 'utf8'));
  } catch (e) {
    throw new Error(
      `base manifest ${mPath} is not valid JSON (${(e as Error).message}); regenerate it with npm run ` +
        `pretrain -- --env ${spec.name} --preset ${preset}`,
      { cause: e },
    );
  }
  const manifest = checkBaseManifest(raw, spec, tok);
  const wPath = path.join(path.dirname(mPath), manifest.file);
  if (!fs.existsSync(wPath)) throw new Error(`base weights ${wPath} are missing; regenerate with: ${manifest.command}`);
  const bytes = new Uint8Array(fs.readFileSync(wPath));
  await checkBaseWeights(bytes, manifest);
  return { manifest, bytes, path: wPath };
}
