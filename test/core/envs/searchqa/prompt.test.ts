/**
 * searchqa prompts fit nano's context. nano's maxSeq is 384 tokens and the env's maxActionTokens 16, so a prompt has
 * 368 tokens (rollout/runner.ts `maxPrompt`). Measured here with the env's tokenizer (`buildTokenizer`) and the
 * rollout's prompt (rollout/prompt.ts), untruncated, at the default history H = 3 (DEFAULT_CONFIG.historyTurns), on
 * every step of the expert's episodes of tasks 0–499 of every split (5 375 prompts): at most 345 tokens, 95th
 * percentile 303, median 167, mean 146 — so every expert prompt fits whole. An episode of invalid actions
 * (Search-R1's
 * ~50-token message in each past turn) reaches 242. These numbers are pinned: a change to the text the agent reads
 * must re-measure them (and keep the maximum under 368).
 */
import { describe, expect, it } from 'vitest';
import { searchqa } from '../../../../src/core/envs/searchqa';
import { buildTokenizer } from '../../../../src/core/model/policy';
import { MODEL_PRESETS } from '../../../../src/core/model/config';
import { DEFAULT_CONFIG } from '../../../../src/core/run/config';
import { buildPrompt, type Turn } from '../../../../src/core/rollout/prompt';
import { SPLITS } from '../../../../src/core/envs/types';

const tok = buildTokenizer(searchqa);
const H = DEFAULT_CONFIG.historyTurns;

/** The untruncated prompt length of every step of an episode played by `act`. */
function episodeLengths(
  split: (typeof SPLITS)[number],
  index: number,
  act: (env: ReturnType<typeof searchqa.create>) => string,
) {
  const env = searchqa.create('default');
  const r = env.reset({ split, index });
  const hist: Turn[] = [];
  const out: number[] = [];
  let obs = r.observation;
  let st;
  do {
    const x = { task: r.task, history: hist, observation: obs, admissible: env.admissibleActions(), historyTurns: H };
    out.push(buildPrompt(tok, x, 100_000).length);
    const a = act(env);
    st = env.step(a);
    hist.push({ action: a, observation: st.observation });
    obs = st.observation;
  } while (!st.done);
  return out;
}

describe('searchqa prompt lengths (nano, H = 3)', () => {
  const budget = MODEL_PRESETS.nano.maxSeq - searchqa.maxActionTokens!;

  it('the budget is 384 − 16 = 368 tokens at the default history of 3 turns', () => {
    expect(MODEL_PRESETS.nano.maxSeq).toBe(384);
    expect(searchqa.maxActionTokens).toBe(16);
    expect(H).toBe(3);
    expect(budget).toBe(368);
  });

  it('every expert prompt of tasks 0–499 of every split fits whole: max 345, p95 303, median 167', () => {
    const lens: number[] = [];
    for (const split of SPLITS)
      for (let i = 0; i < 500; i++) lens.push(...episodeLengths(split, i, (env) => searchqa.expert(env).act()));
    lens.sort((a, b) => a - b);
    expect(lens.length).toBe(5375);
    expect(lens[lens.length - 1]).toBe(345);
    expect(lens[Math.floor(lens.length * 0.95)]).toBe(303);
    expect(lens[Math.floor(lens.length / 2)]).toBe(167);
    expect(Math.round(lens.reduce((a, b) => a + b, 0) / lens.length)).toBe(146);
    expect(lens[lens.length - 1]).toBeLessThanOrEqual(budget);
  });

  it('an episode of invalid actions stays far under the budget (242)', () => {
    expect(Math.max(...episodeLengths('train', 0, () => 'xyzzy'))).toBe(242);
  });
});
