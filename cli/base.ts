/**
 * Loading the shipped base policy in Node: `public/base/<stem>.json` (core/pretrain/base.ts `baseStem`) and its
 * weights, checked against the code (vocabulary hash, env version) and the manifest (size, sha256).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EnvSpec } from '../src/core/envs/types';
import type { Tokenizer } from '../src/core/tokenizer/tokenizer';
import { baseManifestPath, checkBaseManifest, checkBaseWeights, type BaseManifest } from '../src/core/pretrain/base';

/** The repository's `public/`, whose `base/` holds the shipped base policies. */
export const SHIPPED_PUBLIC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'public');

/**
 * The folder whose `base/` holds the base policies the CLI reads (train and eval `--init base`/`--policy base`,
 * bench, experiment) and `pretrain` writes without `--out`: the folder the environment variable `OPD_PUBLIC_DIR`
 * names (a folder of one's own base policies; an empty one shows what a user meets where none ships), a relative
 * value resolved against the folder npm was run from (`INIT_CWD`, which npm sets; `cwd` when unset), else the
 * repository's `public/` (SHIPPED_PUBLIC_DIR).
 */
export function publicDirOf(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const v = env.OPD_PUBLIC_DIR;
  return v ? path.resolve(env.INIT_CWD || cwd, v) : SHIPPED_PUBLIC_DIR;
}

/** `OPD_PUBLIC_DIR` as set for this process; undefined when unset or empty. */
export const PUBLIC_DIR_VAR: string | undefined = process.env.OPD_PUBLIC_DIR || undefined;

/** This process's folder of base policies (`publicDirOf`). */
export const PUBLIC_DIR = publicDirOf();

/** What is wrong with `dir` as a folder of base policies: `does not exist`, `is not a folder`, or null. */
export function folderProblem(dir: string): 'does not exist' | 'is not a folder' | null {
  if (!fs.existsSync(dir)) return 'does not exist';
  return fs.statSync(dir).isDirectory() ? null : 'is not a folder';
}

/** `OPD_PUBLIC_DIR=<value>` with the folder it resolves to when that differs from the value: for messages. */
export function publicDirNamed(value: string, dir: string): string {
  return value === dir ? `OPD_PUBLIC_DIR=${value}` : `OPD_PUBLIC_DIR=${value} (${dir})`;
}

/**
 * Whose base policy the messages and train's start line speak of: `the shipped base policy`, or with OPD_PUBLIC_DIR
 * set `the base policy under OPD_PUBLIC_DIR=<value>`.
 */
export function basePolicyWords(value: string | undefined = PUBLIC_DIR_VAR): string {
  return value === undefined ? 'the shipped base policy' : `the base policy under OPD_PUBLIC_DIR=${value}`;
}

/** `file` as a message shows it: relative to the working folder when under it, else absolute. */
export function shownPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/**
 * Why there is no base policy for `spec`/`preset` in `publicDir` (its manifest `mPath` is missing), the pretrain
 * command that makes one and `alternative` (the command's other way on): where OPD_PUBLIC_DIR names the folder
 * (`named`), it says so, that unsetting it uses the shipped ones, and a value that names a file or nothing as such.
 */
function missingBaseMessage(
  spec: EnvSpec,
  preset: string,
  where: { publicDir: string; mPath: string; named: string | undefined },
  alternative: string,
): string {
  const make = `npm run pretrain -- --env ${spec.name} --preset ${preset}`;
  const or = alternative ? `, or ${alternative}` : '';
  const { publicDir, mPath, named } = where;
  if (named === undefined)
    return (
      `no base policy for ${spec.name}/${preset} (${path.relative(process.cwd(), mPath)} is missing); ` +
      `make one with ${make}${or}`
    );
  const problem = folderProblem(publicDir);
  const env = publicDirNamed(named, publicDir);
  if (problem)
    return (
      `no base policy for ${spec.name}/${preset}: ${env} ${problem}; unset OPD_PUBLIC_DIR to use the shipped ` +
      `base policies, or set it to a folder whose base/ holds yours${or}`
    );
  return (
    `no base policy for ${spec.name}/${preset}: it was looked for under ${env} (${mPath} is missing); unset ` +
    `OPD_PUBLIC_DIR to use the shipped base policies, or make one there with ${make}${or}`
  );
}

/**
 * Read and check the base policy for an env and preset, from `publicDir` (default PUBLIC_DIR: the repository's
 * `public/`, or OPD_PUBLIC_DIR's folder, which a missing policy's message then names). `alternative`, the command's
 * other way on when there is none (train: `pass --init scratch …`), ends the message for a missing base policy after
 * the pretrain command that makes one.
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
  const named = publicDir === PUBLIC_DIR ? PUBLIC_DIR_VAR : undefined;
  if (!fs.existsSync(mPath))
    throw new Error(missingBaseMessage(spec, preset, { publicDir, mPath, named }, alternative));
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
