/**
 * `--env` on every command that takes one: its `--help` line lists every registered environment with its presets
 * (cli/env-flags.ts, the run schema for train), and `presetFor` gives the env's own default preset or refuses one the
 * env lacks, naming its presets.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { ENV_SPECS } from '../../src/core/envs/registry';
import { UsageError } from '../../cli/args';
import { envAndPreset, presetFor } from '../../cli/env-flags';
import { unwrapHelp } from '../helpers/help-text';

const COMMANDS: [string, string[]][] = [
  ['train', ['cli/train.ts', '--help']],
  ['eval', ['cli/eval.ts', '--help']],
  ['play', ['cli/play.ts', '--help']],
  ['pretrain', ['cli/pretrain.ts', '--help']],
  ['bench', ['cli/bench.ts', '--help']],
  ['experiment', ['cli/experiment.ts', '--help']],
];

describe('--env', () => {
  for (const [name, args] of COMMANDS)
    it(`${name} --help lists every registered env and its presets`, () => {
      const r = spawnSync('node_modules/.bin/tsx', args, { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const out = unwrapHelp(r.stdout);
      const line = out.split('\n').find((l) => /^\s+--env\s/.test(l)) ?? '';
      for (const spec of ENV_SPECS) {
        expect(line).toContain(spec.name);
        expect(out).toContain(spec.presets.join(', '));
      }
    });

  it("presetFor: the env's default preset when none is given; another env's preset refused naming the env's", () => {
    for (const spec of ENV_SPECS) {
      expect(presetFor(spec, undefined)).toBe(spec.defaultPreset);
      for (const p of spec.presets) expect(presetFor(spec, p)).toBe(p);
      expect(() => presetFor(spec, 'no-such-preset')).toThrow(UsageError);
      expect(() => presetFor(spec, 'no-such-preset')).toThrow(
        `--preset: ${spec.name} has no preset "no-such-preset"; one of ${spec.presets.join(', ')}`,
      );
      expect(envAndPreset(spec.name, undefined)).toEqual({ spec, preset: spec.defaultPreset });
    }
    expect(() => envAndPreset('no-such-env', undefined)).toThrow(/^--env must be one of: /);
  });
});
