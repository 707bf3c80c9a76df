/**
 * The next-action distribution of a policy over a turn's admissible actions, for the page's "act with the current
 * policy" panel (src/worker/act.ts). Each admissible action a is scored as the whole response the sampler would emit,
 * ␣a <eos> (rollout/prompt.ts `actionTokens`), by the model's batched scoring (model/scoring.ts `scoreSamples`) at
 * the run's temperature T and decoding:
 *
 *   ℓ(a) = Σ_t log softmax(logits_t / T + mask_t)[a_t]   (nats; the full-sequence log-prob)
 *
 * with mask_t the admissible-prefix mask of the action trie (rollout/trie.ts) under `admissible` decoding and the
 * free-decoding mask under `free` — the distribution model/sample.ts draws from, token by token.
 *
 * - `admissible` decoding: the sampler can only emit admissible actions, so p(a) = exp(ℓ(a)) / Σ_a' exp(ℓ(a'))
 *   over
 *   the list (the trie-masked token distributions already sum to 1 over the list's complete actions; normalising
 *   removes only float rounding).
 * - `free` decoding: p(a) = exp(ℓ(a)), not normalised: the rest of the mass belongs to inadmissible responses.
 *
 * An action whose response (its tokens and <eos>) is longer than `maxActionTokens` can never be completed by the
 * sampler: ℓ = −∞, p = 0, and it is not scored.
 *
 * An open action (a free-text prefix such as shop's `search[`, envs/types.ts `isOpenAction`) is scored as its
 * prefix alone, without <eos>: ℓ is the log-prob of entering the slot, i.e. the mass of every `search[…]` the
 * sampler could complete, so under admissible decoding the list's probabilities still sum to 1. It needs room for
 * its prefix, a `]` and <eos> within `maxActionTokens`.
 */
import type { PolicyHandle } from '../model/policy';
import { scoreSamples, type ScoreSample } from '../model/scoring';
import { actionTokens } from './prompt';
import { admissibleTrie } from './trie';
import { isOpenAction } from '../envs/types';
import { counted } from '../count-text';

/** The decodings `scoreActions` supports (RunConfig.decoding; rollout/runner.ts DECODINGS). */
export type ActDecoding = 'admissible' | 'free';

/** What the scores depend on besides the policy and the prompt (the run's rollout settings). */
export interface ActionScoreOptions {
  decoding: ActDecoding;
  /** Sampling temperature T > 0 (RunConfig.temperature). */
  temperature: number;
  /** Max response tokens, <eos> included (RunConfig.maxActionTokens). */
  maxActionTokens: number;
}

/** One admissible action under the policy. */
export interface ActionProb {
  /** The action as the environment lists it. */
  action: string;
  /** Its index in the admissible list. */
  index: number;
  /**
   * ℓ(a): full-sequence log-prob of ␣a <eos> (nats, float64 sum of the float32 token log-probs); −Infinity when
   * too long.
   */
  logp: number;
  /** p(a): normalised over the list under admissible decoding, exp(ℓ(a)) under free decoding; in [0, 1]. */
  prob: number;
  /** Response tokens, <eos> included (an open action: its prefix tokens, no <eos>). */
  tokens: number;
}

/**
 * The scoring samples of a turn: one per admissible action that fits in `maxActionTokens` (response ␣a <eos>, with
 * the trie's allowed set at each token under admissible decoding, null = the free set under free decoding).
 * Actions that tokenise like an earlier one are skipped (the sampler cannot tell them apart).
 * @returns the samples and, for each, its index in `admissible`.
 */
export function actionSamples(
  policy: Pick<PolicyHandle, 'tok'>,
  prompt: readonly number[],
  admissible: readonly string[],
  o: ActionScoreOptions,
): { samples: ScoreSample[]; index: number[] } {
  const eos = policy.tok.special('<eos>');
  const seqs = admissible.map((a) => actionTokens(policy.tok, a));
  const opens = admissible.map(isOpenAction);
  const trie = o.decoding === 'admissible' ? admissibleTrie(policy.tok, admissible) : null;
  const seen = new Set<string>();
  const samples: ScoreSample[] = [],
    index: number[] = [];
  seqs.forEach((s, i) => {
    const key = s.join(',');
    if (seen.has(key)) return;
    seen.add(key);
    const response = opens[i] ? [...s] : [...s, eos];
    if (response.length + (opens[i] ? 2 : 0) > o.maxActionTokens) return;
    samples.push({
      prompt,
      response,
      allowed: response.map((_, t) => (trie ? trie.allowed(response.slice(0, t)) : null)),
    });
    index.push(i);
  });
  return { samples, index };
}

/**
 * Every admissible action's ℓ(a) and p(a) under `policy` for `prompt` (see the module comment), in list order.
 * @throws Error when `temperature` is not > 0, `maxActionTokens` < 1, or no admissible action fits in
 *   maxActionTokens (nothing the sampler could complete); Error from scoring when prompt + response exceeds maxSeq.
 */
export async function scoreActions(
  policy: PolicyHandle,
  prompt: readonly number[],
  admissible: readonly string[],
  o: ActionScoreOptions,
): Promise<ActionProb[]> {
  if (!(o.temperature > 0)) throw new Error(`scoreActions: temperature must be > 0, got ${o.temperature}`);
  if (!(o.maxActionTokens >= 1)) {
    throw new Error(`scoreActions: maxActionTokens must be ≥ 1, got ${o.maxActionTokens}`);
  }
  const { samples, index } = actionSamples(policy, prompt, admissible, o);
  if (!samples.length)
    throw new Error(
      `scoreActions: no admissible action fits in maxActionTokens = ${counted(o.maxActionTokens, 'token')}; raise ` +
        `maxActionTokens`,
    );
  const { logp } = await scoreSamples(policy.params, policy.cfg, samples, policy.freeRow, {
    temperature: o.temperature,
  });
  const out: ActionProb[] = admissible.map((action, i) => ({
    action,
    index: i,
    logp: -Infinity,
    prob: 0,
    tokens: actionTokens(policy.tok, action).length + (isOpenAction(action) ? 0 : 1),
  }));
  let off = 0;
  samples.forEach((s, j) => {
    let l = 0;
    for (let t = 0; t < s.response.length; t++) l += logp[off + t];
    off += s.response.length;
    out[index[j]].logp = l;
  });
  const finite = out.filter((a) => a.logp > -Infinity);
  if (o.decoding === 'admissible') {
    const m = Math.max(...finite.map((a) => a.logp));
    const lse = m + Math.log(finite.reduce((z, a) => z + Math.exp(a.logp - m), 0));
    for (const a of finite) a.prob = Math.exp(a.logp - lse);
  } else for (const a of finite) a.prob = Math.exp(a.logp);
  return out;
}

/**
 * The k most probable actions, most probable first (ties: list order). Their probabilities sum to ≤ 1 (up to float
 * rounding of the normalisation under admissible decoding).
 * @throws Error when k is not a positive integer.
 */
export function topActions(scores: readonly ActionProb[], k: number): ActionProb[] {
  if (!Number.isInteger(k) || k < 1) throw new Error(`topActions: k must be a positive integer, got ${k}`);
  return rankActions(scores).slice(0, k);
}

/** Every action, most probable first (ties: list order). */
export function rankActions(scores: readonly ActionProb[]): ActionProb[] {
  return [...scores].sort((a, b) => b.prob - a.prob || a.index - b.index);
}
