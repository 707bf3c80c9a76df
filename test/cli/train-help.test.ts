/**
 * `npm run train -- --help` says each run setting's default as train applies it: a setting whose default is the env's
 * own (src/core/run/config.ts `defaultFor`: the preset, the longest action from `EnvSpec.maxActionTokens`) names each
 * registered env's, in registry order; any other names the schema's one default.
 */
import { describe, expect, it } from 'vitest';
import { defaultText, helpText } from '../../cli/train-flags';
import { unwrapHelp } from '../helpers/help-text';

/** The two lines of `--help` for `--flag`: its label and meaning, then its facts. */
function helpOf(flag: string): string {
  const lines = unwrapHelp(helpText()).split('\n');
  const at = lines.findIndex((l) => l.startsWith(`  --${flag} `));
  expect(at).toBeGreaterThan(0);
  return lines[at + 1].trim();
}

describe('train --help: defaults', () => {
  it("--max-action-tokens: each env's own longest action", () => {
    expect(defaultText('maxActionTokens')).toBe("default: the env's (household 12, shop 20, searchqa 16)");
    expect(helpOf('max-action-tokens')).toBe(
      "accepted: an integer in [2, 64]; default: the env's (household 12, shop 20, searchqa 16); unit: tokens",
    );
  });

  it("--preset: each env's default preset", () => {
    expect(defaultText('preset')).toBe("default: the env's (household easy, shop default, searchqa default)");
  });

  it('a setting with one default for every env names it once', () => {
    expect(defaultText('env')).toBe('default household');
    expect(defaultText('learningRate')).toBe('default 0.0001');
    expect(defaultText('backend')).toBe('default wasm');
    expect(helpOf('backend')).toBe('accepted: one of cpu, wasm, webgpu; default wasm');
  });
});
