/**
 * `npm run eval -- --policy random` on envs with open forms (a free-text prefix such as `search[`, envs/types.ts
 * `isOpenAction`): the random policy draws uniformly from the admissible actions and completes a drawn open form with
 * 1–4 random words of the task line and `]` (cli/eval.ts `playPolicy`, pretrain/demos.ts `randomAction`), so no bare
 * open form, and no empty one, is ever sent as an action.
 */
import { describe, expect, it } from 'vitest';
import { playPolicy } from '../../cli/eval';
import { getEnvSpec } from '../../src/core/envs/registry';
import { isOpenAction } from '../../src/core/envs/types';
import { Rng } from '../../src/core/rng';

/** Every action of `n` random-policy episodes of the env's default preset on test-seen, seed 1. */
function randomPlay(env: string, n: number) {
  const spec = getEnvSpec(env);
  return playPolicy(spec, spec.defaultPreset, 'test-seen', 0, n, 'random', new Rng(1));
}

describe('eval --policy random: open forms are completed', () => {
  it('searchqa: each search[ and answer[ gets words of the task line', () => {
    const ts = randomPlay('searchqa', 20);
    expect(ts[0].steps.map((s) => s.action)).toEqual(['search[beacon when the was]', 'answer[when the]']);
    for (const t of ts)
      for (const s of t.steps) {
        expect(s.admissible.every(isOpenAction)).toBe(true);
        expect(s.action).toMatch(/^(search|answer)\[[^\]\s][^\]]*\]$/);
        const words = s.action.slice(s.action.indexOf('[') + 1, -1).split(' ');
        expect(words.length).toBeGreaterThanOrEqual(1);
        expect(words.length).toBeLessThanOrEqual(4);
      }
    // not 0 by construction: some answers share words with the gold answer
    expect(ts.some((t) => (t.metrics?.f1 ?? 0) > 0)).toBe(true);
  });

  it("shop: search[ gets words of the task line; the other actions are the list's own", () => {
    const ts = randomPlay('shop', 10);
    expect(ts[0].steps.slice(0, 3).map((s) => s.action)).toEqual([
      'search[with i tea flavor]',
      'click[b54z96]',
      'click[berry]',
    ]);
    let opens = 0;
    for (const t of ts)
      for (const s of t.steps) {
        expect(isOpenAction(s.action)).toBe(false);
        const open = s.admissible.find((a) => isOpenAction(a) && s.action.startsWith(a));
        if (open) {
          opens++;
          expect(s.action).toMatch(/^search\[[^\]\s][^\]]*\]$/);
        } else expect(s.admissible).toContain(s.action);
      }
    expect(opens).toBeGreaterThan(0);
  });
});
