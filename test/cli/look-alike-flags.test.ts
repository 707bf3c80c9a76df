/**
 * A flag value written with look-alike characters — the digit 0 for the letter o, 1 for l, Cyrillic or Greek letters
 * that look Latin — gets the same "did you mean …?" as a typo (core/near.ts), and characters that cannot be told
 * from Latin ones on screen are named with their code points, so that the refusal of `ѕһор` is not a mystery.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { play } from '../../cli/play';
import { ENV_NAMES } from '../../src/core/envs/registry';

/** The accepted envs as the --env message lists them (every registered env). */
const ENVS = ENV_NAMES.join(', ');

const cli = (script: string, args: string[]) =>
  spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });

/** The first line of stderr of `play` run in-process on no input. */
async function playError(argv: string[]): Promise<string> {
  let err = '';
  const code = await play(argv, {
    lines: (async function* () {})(),
    write: () => {},
    error: (s) => (err += s),
  });
  expect(code).toBe(2);
  return err.split('\n')[0];
}

describe('look-alike characters in a flag value', () => {
  it('--env with a digit 0 or Cyrillic letters suggests the env, naming the look-alikes', async () => {
    expect(await playError(['--env', 'sh0p'])).toBe(
      `play: --env must be one of: ${ENVS} (got "sh0p"); did you mean shop?`,
    );
    expect(await playError(['--env', 'ѕһор'])).toBe(
      `play: --env must be one of: ${ENVS} (got "ѕһор"); did you mean shop? (written with look-alikes of ` +
        'Latin letters: ѕ U+0455, һ U+04BB, о U+043E, р U+0440)',
    );
  });

  it('train --algo 0p1d and --preset in Cyrillic, eval --split in Cyrillic: each suggests the value meant', () => {
    const algo = cli('train', ['--algo', '0p1d']);
    expect(algo.status).toBe(2);
    expect(algo.stderr.split('\n')[0]).toBe(
      'train: --algo must be one of: grpo, opid, skill-grpo, agentic-opd (got "0p1d"); did you mean opid?',
    );
    const preset = cli('train', ['--preset', 'еаѕу']);
    expect(preset.status).toBe(2);
    expect(preset.stderr.split('\n')[0]).toBe(
      'train: --preset: household has no preset "еаѕу"; one of default, easy, easy-pick2; did you mean easy? ' +
        '(written with look-alikes of Latin letters: е U+0435, а U+0430, ѕ U+0455, у U+0443)',
    );
    const split = cli('eval', ['--split', 'tеst-seen']);
    expect(split.status).toBe(2);
    expect(split.stderr.split('\n')[0]).toBe(
      'eval: --split: unknown split "tеst-seen" (accepted: train, test-seen, test-unseen, val, or several separated ' +
        'by commas); did you mean test-seen? (written with look-alikes of Latin letters: е U+0435)',
    );
  }, 120_000);
});
