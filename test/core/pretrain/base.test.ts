import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../../helpers/backend';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { buildTokenizer, disposePolicy, loadPolicy } from '../../../src/core/model/policy';
import { checkBaseManifest, checkBaseWeights, baseManifestPath, startKind } from '../../../src/core/pretrain/base';
import { sha256Hex } from '../../../src/core/sha256';
import { measureHinted } from '../../../src/core/pretrain/measure';
import { MODEL_PRESETS } from '../../../src/core/model/config';
import { Rng } from '../../../src/core/rng';
import { loadBaseFiles } from '../../../cli/base';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);
const mPath = path.join('public', baseManifestPath(spec, 'easy'));
const raw = () => JSON.parse(fs.readFileSync(mPath, 'utf8'));

describe('shipped base policy', () => {
  beforeAll(() => useBackend('cpu'));

  it(
    'weights load and match the manifest: size, sha256, vocabulary hash, env version, model shape; < 8 ' + 'MB',
    async () => {
      const m = checkBaseManifest(raw(), spec, tok);
      const bytes = new Uint8Array(fs.readFileSync(path.join(path.dirname(mPath), m.file)));
      expect(bytes.length).toBe(m.bytes);
      expect(await sha256Hex(bytes)).toBe(m.sha256);
      expect(bytes.length).toBeLessThan(8 * 1024 * 1024);
      const p = loadPolicy(bytes, tok);
      expect(p.size).toBe(m.model);
      expect({ d: p.cfg.dModel, L: p.cfg.nLayers, h: p.cfg.nHeads }).toEqual({
        d: MODEL_PRESETS[m.model].dModel,
        L: MODEL_PRESETS[m.model].nLayers,
        h: MODEL_PRESETS[m.model].nHeads,
      });
      expect(p.cfg.vocabSize).toBe(tok.size);
      disposePolicy(p);
      const viaCli = await loadBaseFiles(spec, 'easy', tok);
      expect(viaCli.manifest.sha256).toBe(m.sha256);
    },
  );

  it('a mismatched manifest or corrupt weights give an error saying which and how to regenerate', async () => {
    const m = raw();
    expect(() => checkBaseManifest({ ...m, vocabHash: 'deadbeef' }, spec, tok)).toThrow(
      /vocabulary hash deadbeef does not match .*regenerate with: npm run pretrain/,
    );
    expect(() => checkBaseManifest({ ...m, envVersions: { household: 'household-v0' } }, spec, tok)).toThrow(
      /environment version household-v0 does not match the code's household-v2; regenerate with/,
    );
    expect(() => checkBaseManifest({ ...m, sha256: 'xyz' }, spec, tok)).toThrow(/field "sha256"/);
    expect(() => checkBaseManifest({ ...m, env: 'shop' }, spec, tok)).toThrow(/is for env "shop"/);
    const manifest = checkBaseManifest(m, spec, tok);
    const bytes = new Uint8Array(fs.readFileSync(path.join(path.dirname(mPath), manifest.file)));
    const flipped = bytes.slice();
    flipped[flipped.length - 1] ^= 1;
    await expect(checkBaseWeights(flipped, manifest)).rejects.toThrow(
      /sha256 .* differs from the manifest's .* \(corrupt or replaced\)/,
    );
    await expect(checkBaseWeights(bytes.slice(0, 100), manifest)).rejects.toThrow(
      /100 bytes, manifest says \d+ \(corrupt or truncated\)/,
    );
  });

  it(
    "the manifest's no-hint and step-hint success on test-seen reproduce within tolerance on the cpu " +
      'backend (60 episodes)',
    async () => {
      const m = checkBaseManifest(raw(), spec, tok);
      const p = loadPolicy(new Uint8Array(fs.readFileSync(path.join(path.dirname(mPath), m.file))), tok);
      const r = await measureHinted(p, spec, {
        preset: 'easy',
        splits: ['test-seen'],
        modes: ['none', 'step'],
        episodes: 60,
        historyTurns: Number(m.pretrain.historyTurns),
        rng: new Rng(7),
      });
      disposePolicy(p);
      // 60 episodes vs the manifest's 200: binomial sd ≤ 0.065 and 0.035 (combined 0.074), so 0.2 is ~2.7 sd.
      for (const mode of ['none', 'step'] as const)
        expect(
          Math.abs(r['test-seen']![mode]!.successRate - m.measured!['test-seen'][mode].successRate),
        ).toBeLessThanOrEqual(0.2);
    },
  );
});

describe('startKind (the start decision of the page and the CLI)', () => {
  it('named weights win; otherwise base or scratch as the config says', () => {
    expect(startKind('base', true)).toBe('weights');
    expect(startKind('scratch', true)).toBe('weights');
    expect(startKind('base', false)).toBe('base');
    expect(startKind('scratch', false)).toBe('scratch');
  });
});
