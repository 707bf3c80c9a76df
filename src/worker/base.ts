/**
 * Loading the shipped base policy in the browser: the manifest `base/<stem>.json` (core/pretrain/base.ts `baseStem`)
 * and its weights file, fetched from the site root (Vite serves `public/` there), checked against the code and the
 * manifest exactly as the CLI does (`cli/base.ts`): manifest schema, vocabulary hash and environment version
 * (`checkBaseManifest`), size and sha256 of the bytes (`checkBaseWeights`), then the model size the run asks for
 * and the tensor shapes inside the file. Nothing here makes tensors, so it runs in Node tests with a stub fetch.
 */
import { baseManifestPath, checkBaseManifest, checkBaseWeights, type BaseManifest } from '../core/pretrain/base';
import type { EnvSpec } from '../core/envs/types';
import type { Tokenizer } from '../core/tokenizer/tokenizer';
import { vocabHash } from '../core/tokenizer/tokenizer';
import { checkWeights, decodeSafetensors } from '../core/model/io';
import { KIB, ReadCapError, readCappedBytes, readCappedText } from '../core/read-capped';

/**
 * The part of `fetch` the loader uses (the global one in the worker; a stub in tests). Bodies are read only as
 * streams, with a cap (`MAX_MANIFEST_BYTES`, the manifest's `bytes` + `WEIGHTS_MARGIN_BYTES`).
 */
export type FetchLike = (url: string) => Promise<Pick<Response, 'ok' | 'status' | 'statusText' | 'headers' | 'body'>>;

/** The most bytes of a base manifest read (64 KiB; a real one is ~3 kB of JSON). */
export const MAX_MANIFEST_BYTES = 64 * KIB;
/**
 * Bytes allowed past the manifest's `bytes` when reading the weights (64 KiB): a file a little off in size still
 * reaches `checkBaseWeights`, which names the size mismatch; a server streaming without end stops here.
 */
export const WEIGHTS_MARGIN_BYTES = 64 * KIB;

/** A base policy that passed every check. */
export interface BasePolicy {
  manifest: BaseManifest;
  /** The safetensors bytes, ready for `train(config, { initWeights })`. */
  bytes: Uint8Array;
  /** URL the weights came from. */
  url: string;
}

/** Where to fetch from. */
export interface BaseSource {
  /** Site root the `public/` files are served under, ending in `/` (`import.meta.env.BASE_URL` in the worker). */
  baseUrl: string;
  fetch: FetchLike;
}

/** `npm run pretrain` for an env/preset: the command the messages suggest. */
function pretrainCommand(env: string, preset: string): string {
  return `npm run pretrain -- --env ${env} --preset ${preset}`;
}

/** GETs `url`; a network error or a non-2xx status becomes an Error naming the file. */
async function get(src: BaseSource, url: string, what: string): Promise<Awaited<ReturnType<FetchLike>>> {
  let r: Awaited<ReturnType<FetchLike>>;
  try {
    r = await src.fetch(url);
  } catch (e) {
    throw new Error(`could not fetch ${what} ${url} (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  if (!r.ok) {
    r.body?.cancel().catch(() => {}); // the error page is never read
    throw new Error(`${what} ${url} answered HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ''}`);
  }
  return r;
}

/** `read()`, with a body over its cap said in one sentence with the fix (the ReadCapError as its cause). */
async function capped<T>(read: () => Promise<T>, spec: EnvSpec, preset: string): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (!(e instanceof ReadCapError)) throw e;
    throw new Error(
      `${e.message}; the server sent more than a base policy holds: regenerate it with ` +
        `${pretrainCommand(spec.name, preset)} and check the site serves public/base`,
      { cause: e },
    );
  }
}

/**
 * Fetches and checks the base policy of `spec`/`preset` for a run of model size `model`.
 * Sizes: the manifest is ~3 kB of JSON; the weights are 4 bytes per parameter plus a header (nano ≈ 0.4 MB).
 * Reads are capped: the manifest at `MAX_MANIFEST_BYTES`, the weights at the manifest's `bytes` +
 * `WEIGHTS_MARGIN_BYTES` (a declared Content-Length over the cap is refused unread).
 * @throws Error, one sentence naming what is wrong and how to fix it, when: the manifest is missing (a 404 says
 *   "no base policy for env/preset" and the `npm run pretrain` command), unreachable or not JSON; it fails
 *   `checkBaseManifest` (schema, vocabulary hash, env version) or is for another preset; a body passes its cap (the
 *   ReadCapError as cause); the weights are missing, of another size or sha256 (`checkBaseWeights`); the model size
 *   differs from `model`; or the file's metadata or tensor shapes do not fit this code (`checkWeights`).
 */
export async function fetchBasePolicy(
  spec: EnvSpec,
  preset: string,
  tok: Tokenizer,
  model: string,
  src: BaseSource,
): Promise<BasePolicy> {
  const rel = baseManifestPath(spec, preset);
  const mUrl = src.baseUrl + rel;
  let res: Awaited<ReturnType<FetchLike>>;
  try {
    res = await get(src, mUrl, 'base manifest');
  } catch (e) {
    if (/HTTP 404/.test((e as Error).message))
      throw new Error(
        `no base policy for ${spec.name}/${preset} (${rel} is not on the server); ` +
          `make one with ${pretrainCommand(spec.name, preset)}`,
        { cause: e },
      );
    throw e;
  }
  const text = await capped(() => readCappedText(res, MAX_MANIFEST_BYTES, `base manifest ${mUrl}`), spec, preset);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    // A dev server answers an unknown path with index.html (status 200): say so rather than quoting a JSON error.
    const html = /^\s*</.test(text);
    throw new Error(
      html
        ? `no base policy for ${spec.name}/${preset} (${rel} is not on the server; it answered with a web ` +
            `page); make one with ${pretrainCommand(spec.name, preset)}`
        : `base manifest ${rel} is not valid JSON (${(e as Error).message}); ` +
            `regenerate it with ${pretrainCommand(spec.name, preset)}`,
      { cause: e },
    );
  }
  const manifest = checkBaseManifest(raw, spec, tok);
  if (manifest.preset !== preset)
    throw new Error(
      `base manifest ${rel} is for preset "${manifest.preset}", not "${preset}"; ` +
        `regenerate it with ${pretrainCommand(spec.name, preset)}`,
    );
  if (manifest.model !== model)
    throw new Error(
      `the base policy for ${spec.name}/${preset} is model size ${manifest.model} but the run's model is ${model}; ` +
        `set Model to ${manifest.model} to start from it`,
    );
  const wUrl = mUrl.slice(0, mUrl.lastIndexOf('/') + 1) + manifest.file;
  const wRes = await get(src, wUrl, 'base weights');
  const cap = manifest.bytes + WEIGHTS_MARGIN_BYTES;
  const bytes = await capped(() => readCappedBytes(wRes, cap, `base weights ${wUrl}`), spec, preset);
  await checkBaseWeights(bytes, manifest);
  // The manifest could disagree with the file it describes: check the file's own metadata and shapes too, so a
  // mismatched model is refused here instead of failing on the first training step.
  const w = decodeSafetensors(bytes);
  if (w.meta.modelSize !== model)
    throw new Error(
      `base weights ${manifest.file} are model size ${w.meta.modelSize ?? '(none)'} although the manifest ` +
        `says ${manifest.model}; regenerate with: ${manifest.command}`,
    );
  checkWeights(w, { vocabSize: tok.size, vocabHash: vocabHash(tok) });
  return { manifest, bytes, url: wUrl };
}
