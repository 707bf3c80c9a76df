/**
 * The browser's base-policy loader with a stub fetch: the shipped files (public/base, read from disk)
 * load and a run starts from exactly their weights; a missing, corrupt, foreign-vocabulary or other-size base policy
 * makes the run start from scratch with one sentence saying why and what to do; a chosen checkpoint overrides it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { getEnvSpec } from '../../src/core/envs/registry';
import { parseRunConfig, MODEL_SIZES, type RunConfig } from '../../src/core/run/config';
import { baseManifestPath } from '../../src/core/pretrain/base';
import { decodeSafetensors } from '../../src/core/model/io';
import { train } from '../../src/core/train/trainer';
import { buildTokenizer, policyValues } from '../../src/core/model/policy';
import type { PolicyHandle } from '../../src/core/model/policy';
import { fetchBasePolicy, MAX_MANIFEST_BYTES, WEIGHTS_MARGIN_BYTES, type FetchLike } from '../../src/worker/base';
import { resolveStart, type BaseLoader } from '../../src/worker/weights';
import { useBackend } from '../helpers/backend';
import { memoryStore } from '../helpers/store';

beforeAll(() => useBackend('wasm'));

const PUBLIC = join(import.meta.dirname, '../../public');
const MANIFEST_REL = baseManifestPath(getEnvSpec('household'), 'easy');
const manifestText = readFileSync(join(PUBLIC, MANIFEST_REL), 'utf8');
const manifest = JSON.parse(manifestText) as {
  model: string;
  file: string;
  sha256: string;
  vocabHash: string;
  bytes: number;
};
const weightsBytes = new Uint8Array(readFileSync(join(PUBLIC, 'base', manifest.file)));
/** The shipped base policy's model size, so the tests follow the file when the real one replaces the placeholder. */
const baseModel = manifest.model as RunConfig['model'];
const otherModel = MODEL_SIZES.find((m) => m !== baseModel)!;

/** A body the stub serves: text, bytes, or a function making the Response (a stream, a Content-Length). */
type Served = string | Uint8Array | (() => Response);

/** A fetch that serves `files` (URL → body) and answers 404 for anything else; records the URLs asked for. */
function stubFetch(files: Record<string, Served>): FetchLike & { asked: string[] } {
  const asked: string[] = [];
  const f = async (url: string) => {
    asked.push(url);
    const body = files[url];
    if (body === undefined) return new Response('not found', { status: 404, statusText: 'Not Found' });
    if (typeof body === 'function') return body();
    return new Response(typeof body === 'string' ? body : body.slice(), { status: 200, statusText: 'OK' });
  };
  return Object.assign(f, { asked });
}

/**
 * A 200 Response streaming 64 KiB chunks without end (until `limit` bytes), with `headers`; `pulled()` says how many
 * bytes the reader took.
 */
function endless(headers: Record<string, string> = {}, limit = 64 * 1024 * 1024) {
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const make = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent >= limit) return c.close();
          sent += chunk.length;
          c.enqueue(chunk.slice());
        },
      }),
      { status: 200, headers },
    );
  return Object.assign(make, { pulled: () => sent });
}

/** The shipped files as the dev server serves them under `/`, with `patch` replacing some. */
function site(patch: Record<string, Served> = {}): Record<string, Served> {
  return { [`/${MANIFEST_REL}`]: manifestText, [`/base/${manifest.file}`]: weightsBytes, ...patch };
}

function loader(files: Record<string, Served>): BaseLoader & { asked: string[] } {
  const fetch = stubFetch(files);
  const load: BaseLoader = (spec, preset, tok, model) =>
    fetchBasePolicy(spec, preset, tok, model, { baseUrl: '/', fetch });
  return Object.assign(load, { asked: fetch.asked });
}

const config = (patch: Partial<RunConfig> = {}) =>
  parseRunConfig({
    preset: 'easy',
    model: baseModel,
    steps: 1,
    tasksPerStep: 1,
    groupSize: 2,
    miniBatches: 1,
    evalEvery: 0,
    ...patch,
  });
const spec = getEnvSpec('household');

describe('fetchBasePolicy', () => {
  it('loads the shipped manifest and weights, checked', async () => {
    const load = loader(site());
    const b = await load(spec, 'easy', buildTokenizer(spec), baseModel);
    expect(load.asked).toEqual([`/${MANIFEST_REL}`, `/base/${manifest.file}`]);
    expect(b.url).toBe(`/base/${manifest.file}`);
    expect(b.manifest.sha256).toBe(manifest.sha256);
    expect(b.bytes).toEqual(weightsBytes);
  });

  it('stops reading a manifest streamed without end at 64 KiB, naming the cap and what was read', async () => {
    const flood = endless();
    const load = loader(site({ [`/${MANIFEST_REL}`]: flood }));
    await expect(load(spec, 'easy', buildTokenizer(spec), baseModel)).rejects.toThrow(
      new RegExp(
        `^base manifest /${MANIFEST_REL} passed its 64 KiB cap: stopped after reading [\\d.]+ KiB \\(\\d+ bytes\\); ` +
          'the server sent more than a base policy holds: regenerate it with npm run pretrain -- --env household ' +
          '--preset easy and check the site serves public/base$',
      ),
    );
    expect(flood.pulled()).toBeLessThanOrEqual(MAX_MANIFEST_BYTES + 3 * 64 * 1024); // a chunk or two read ahead
  });

  it('caps the weights at the manifest size + 64 KiB: a declared larger body is not read, a flood stops', async () => {
    const cap = manifest.bytes + WEIGHTS_MARGIN_BYTES;
    const declared = endless({ 'content-length': String(cap + 1) });
    const load = loader(site({ [`/base/${manifest.file}`]: declared }));
    await expect(load(spec, 'easy', buildTokenizer(spec), baseModel)).rejects.toThrow(
      `base weights /base/${manifest.file} declares `,
    );
    await expect(load(spec, 'easy', buildTokenizer(spec), baseModel)).rejects.toThrow(
      `(Content-Length ${cap + 1}), over its `,
    );
    expect(declared.pulled()).toBeLessThanOrEqual(2 * 64 * 1024); // only what the stream queued on its own
    const flood = endless();
    const load2 = loader(site({ [`/base/${manifest.file}`]: flood }));
    await expect(load2(spec, 'easy', buildTokenizer(spec), baseModel)).rejects.toThrow(
      /^base weights \/base\/\S+ passed its [\d.]+ (KiB|MiB) cap: stopped after reading/,
    );
    expect(flood.pulled()).toBeLessThanOrEqual(cap + 3 * 64 * 1024);
    // a file exactly the manifest's size still loads (the shipped one, served with its Content-Length)
    const exact = () => new Response(weightsBytes.slice(), { headers: { 'content-length': String(manifest.bytes) } });
    const b = await loader(site({ [`/base/${manifest.file}`]: exact }))(spec, 'easy', buildTokenizer(spec), baseModel);
    expect(b.bytes).toEqual(weightsBytes);
  });

  it('resolves the weights next to the manifest under a sub-path site root', async () => {
    const fetch = stubFetch({ [`/app/${MANIFEST_REL}`]: manifestText, [`/app/base/${manifest.file}`]: weightsBytes });
    const b = await fetchBasePolicy(spec, 'easy', buildTokenizer(spec), baseModel, { baseUrl: '/app/', fetch });
    expect(b.url).toBe(`/app/base/${manifest.file}`);
  });
});

describe('the shipped household/default base policy', () => {
  const rel = baseManifestPath(getEnvSpec('household'), 'default');
  const text = readFileSync(join(PUBLIC, rel), 'utf8');
  const m = JSON.parse(text) as { model: RunConfig['model']; file: string; sha256: string };
  const bytes = new Uint8Array(readFileSync(join(PUBLIC, 'base', m.file)));

  it(
    'loads, checked, with success measured for all six task types; a default-preset run starts from ' +
      'exactly its weights',
    async () => {
      const files = { [`/${rel}`]: text, [`/base/${m.file}`]: bytes };
      const b = await fetchBasePolicy(spec, 'default', buildTokenizer(spec), m.model, {
        baseUrl: '/',
        fetch: stubFetch(files),
      });
      expect(b.manifest.preset).toBe('default');
      expect(b.manifest.sha256).toBe(m.sha256);
      expect(b.bytes).toEqual(bytes);
      for (const split of ['test-seen', 'test-unseen'])
        for (const mode of ['none', 'episode', 'step', 'both'])
          expect(Object.keys(b.manifest.measured![split]![mode].byTaskType).sort(), `${split}/${mode}`).toEqual([
            'clean',
            'cool',
            'heat',
            'look',
            'pick',
            'pick2',
          ]);
      const start = await resolveStart(config({ preset: 'default', model: m.model }), memoryStore(), loader(files));
      expect(start.init).toEqual({
        kind: 'base',
        label: `the base policy (pretrained; household/default, ${m.model})`,
      });
      expect(start.bytes).toEqual(bytes);
    },
  );
});

describe('resolveStart', () => {
  it('starts a base run from exactly the shipped weights', async () => {
    const start = await resolveStart(config(), memoryStore(), loader(site()));
    expect(start.init).toEqual({ kind: 'base', label: `the base policy (pretrained; household/easy, ${baseModel})` });
    expect(start.config.init).toBe('base');
    expect(start.bytes).toEqual(weightsBytes);
    let first: PolicyHandle | null = null;
    const gen = train(start.config, { backend: 'wasm', initWeights: start.bytes, onPolicy: (p) => (first = p) });
    const ev = await gen.next();
    expect(ev.value).toMatchObject({ event: 'start', config: { init: 'base', model: baseModel } });
    const got = await policyValues(first!);
    const want = decodeSafetensors(weightsBytes).values;
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [k, v] of want) expect(got.get(k), k).toEqual(v);
    await gen.return(undefined);
  });

  /** Runs resolveStart with `files` served and checks it fell back to scratch with a reason matching `why`. */
  async function fallsBack(files: Record<string, Served>, why: RegExp, patch: Partial<RunConfig> = {}) {
    const start = await resolveStart(config(patch), memoryStore(), loader(files));
    expect(start.bytes).toBeUndefined();
    expect(start.config.init).toBe('scratch');
    expect(start.init.kind).toBe('scratch');
    expect(start.init.label).toBe(`fresh weights from seed ${start.config.seed}`);
    expect(start.init.fallback).toMatch(/^Starting from scratch: /);
    expect(start.init.fallback).toMatch(why);
    // The trainer accepts the fallback config without weights (it throws for init 'base' without them).
    const gen = train(start.config, { backend: 'wasm' });
    expect((await gen.next()).value).toMatchObject({ event: 'start' });
    await gen.return(undefined);
    return start.init.fallback!;
  }

  it('falls back on a missing base policy (404), naming the preset and the command', async () => {
    const msg = await fallsBack(
      site(),
      /no base policy for household\/default \(base\/household-default\.json is not on the server\)/,
      { preset: 'default' },
    );
    expect(msg).toMatch(/make one with npm run pretrain -- --env household --preset default\.$/);
  });

  it("falls back when the server answers a web page instead of the manifest (a dev server's fallback)", async () => {
    await fallsBack(
      site({ [`/${MANIFEST_REL}`]: '<!doctype html><html></html>' }),
      /no base policy for household\/easy .*answered with a web page/,
    );
  });

  it('falls back on a manifest that is not JSON or misses fields', async () => {
    await fallsBack(
      site({ [`/${MANIFEST_REL}`]: '{"format": 1,' }),
      /base manifest base\/household-easy\.json is not valid JSON/,
    );
    await fallsBack(
      site({ [`/${MANIFEST_REL}`]: JSON.stringify({ ...JSON.parse(manifestText), sha256: undefined }) }),
      /base manifest: field "sha256"/,
    );
  });

  it('falls back on corrupt weights (sha256 differs) and on missing weights', async () => {
    const corrupt = weightsBytes.slice();
    corrupt[corrupt.length - 1] ^= 0xff;
    await fallsBack(
      site({ [`/base/${manifest.file}`]: corrupt }),
      new RegExp(`base weights ${manifest.file}: sha256 [0-9a-f]{64} differs from the manifest's ${manifest.sha256}`),
    );
    await fallsBack(site({ [`/base/${manifest.file}`]: weightsBytes.slice(0, 100) }), /100 bytes, manifest says/);
    const files = site();
    delete files[`/base/${manifest.file}`];
    await fallsBack(files, new RegExp(`base weights /base/${manifest.file} answered HTTP 404`));
  });

  it('falls back on a vocabulary mismatch, quoting the regenerate command', async () => {
    const other = JSON.stringify({ ...JSON.parse(manifestText), vocabHash: '0000000000000000' });
    const msg = await fallsBack(
      site({ [`/${MANIFEST_REL}`]: other }),
      /vocabulary hash 0000000000000000 does not match the code's [0-9a-f]+ \(the tokenizer changed\)/,
    );
    expect(msg).toContain('regenerate with: npm run pretrain');
  });

  it('falls back on another env version', async () => {
    const other = JSON.stringify({ ...JSON.parse(manifestText), envVersions: { household: 'household-v0' } });
    await fallsBack(site({ [`/${MANIFEST_REL}`]: other }), /environment version household-v0 does not match/);
  });

  it('never trains a model of another size: falls back, naming both sizes', async () => {
    const msg = await fallsBack(
      site(),
      new RegExp(`is model size ${baseModel} but the run's model is ${otherModel}; set Model to ${baseModel}`),
      { model: otherModel },
    );
    expect(msg).toMatch(/^Starting from scratch: the base policy for household\/easy/);
  });

  it('falls back when the manifest claims another size than the weights hold', async () => {
    const lying = JSON.stringify({ ...JSON.parse(manifestText), model: otherModel });
    await fallsBack(
      site({ [`/${MANIFEST_REL}`]: lying }),
      new RegExp(`are model size ${baseModel} although the manifest says ${otherModel}`),
      { model: otherModel },
    );
  });

  it('falls back when the fetch itself fails (offline)', async () => {
    const offline: BaseLoader = (s, p, t, m) =>
      fetchBasePolicy(s, p, t, m, {
        baseUrl: '/',
        fetch: async () => {
          throw new TypeError('Failed to fetch');
        },
      });
    const start = await resolveStart(config(), memoryStore(), offline);
    expect(start.init.fallback).toBe(
      `Starting from scratch: could not fetch base manifest /${MANIFEST_REL} (Failed to fetch).`,
    );
  });

  it('scratch fetches nothing; a checkpoint overrides the base policy', async () => {
    const load = loader(site());
    const s = await resolveStart(config({ init: 'scratch' }), memoryStore(), load);
    expect(s).toEqual({
      config: config({ init: 'scratch' }),
      init: { kind: 'scratch', label: 'fresh weights from seed 1' },
    });
    const store = memoryStore();
    await store.put({ name: 'mine', bytes: new Uint8Array([1, 2, 3]), modelSize: baseModel, savedAt: 1 });
    const c = await resolveStart(config(), store, load, 'mine');
    expect(c.init).toEqual({ kind: 'checkpoint', label: 'checkpoint "mine"' });
    expect(c.bytes).toEqual(new Uint8Array([1, 2, 3]));
    expect(load.asked).toEqual([]);
    await expect(resolveStart(config(), store, load, 'gone')).rejects.toThrow(/no saved weights named "gone"/);
  });
});
