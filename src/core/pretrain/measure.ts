/**
 * Measurements of a base policy (written into its manifest, `base.ts`): success with and without correct hints per
 * split and task type, and skill sensitivity at the token level — the mean log-prob (nats, summed over an action's
 * tokens) of the expert action on held-out steps without and with the correct step skill in the prompt.
 */
import type { EnvSpec, Split } from '../envs/types';
import type { Rng } from '../rng';
import type { PolicyHandle } from '../model/policy';
import { actionTokens, buildPrompt, type Turn } from '../rollout/prompt';
import { admissibleTrie } from '../rollout/trie';
import { scoreSamples, type ScoreSample } from '../model/scoring';
import { evaluatePolicy } from '../rollout/evaluate';
import type { SplitEval } from '../rollout/evaluate';
import { stepSkill } from '../skills/grammar';
import type { HintMode } from '../envs/expert-hints';
import { maxActionTokensFor } from './pretrain';

/** Success per split and hint mode. */
export type HintedSuccess = Partial<Record<Split, Partial<Record<HintMode, SplitEval>>>>;

/**
 * Evaluate `policy` on each split under each hint mode (temperature 0.4, admissible decoding, same task indices
 * 0..episodes−1 for every mode). @throws Error from the env on bad settings.
 */
export async function measureHinted(
  policy: PolicyHandle,
  spec: EnvSpec,
  o: {
    preset: string;
    splits: readonly Split[];
    modes: readonly HintMode[];
    episodes: number;
    historyTurns: number;
    rng: Rng;
    /** Longest sampled action (tokens, <eos> included); default the env's (`maxActionTokensFor`). */
    maxActionTokens?: number;
  },
): Promise<HintedSuccess> {
  const out: HintedSuccess = {};
  for (const mode of o.modes) {
    const e = await evaluatePolicy(policy, spec, {
      preset: o.preset,
      splits: o.splits,
      episodes: o.episodes,
      temperature: 0.4,
      decoding: 'admissible',
      historyTurns: o.historyTurns,
      maxActionTokens: o.maxActionTokens ?? maxActionTokensFor(spec),
      rng: o.rng.fork(mode),
      hints: mode,
    });
    for (const s of o.splits) (out[s] ??= {})[mode] = e.splits[s];
  }
  return out;
}

/** Mean per-action log-probs in nats over `steps` scored steps. */
export interface SensitivityStats {
  steps: number;
  logpNoSkill: number;
  logpWithSkill: number;
  /** logpWithSkill − logpNoSkill (nats per action). */
  gainNats: number;
}

/** Result of `skillSensitivity`: over all steps, and per task type (the type of the episode each step is from). */
export interface SkillSensitivity extends SensitivityStats {
  byTaskType: Record<string, SensitivityStats>;
}

/** Mean of `plain` and `hinted` log-probs over the step indices `idx` (nats per action). */
function stats(plain: Float32Array, hinted: Float32Array, idx: readonly number[]): SensitivityStats {
  let a = 0,
    b = 0;
  for (const i of idx) {
    a += plain[i];
    b += hinted[i];
  }
  const n = idx.length;
  const logpNoSkill = n ? a / n : 0,
    logpWithSkill = n ? b / n : 0;
  return { steps: n, logpNoSkill, logpWithSkill, gainNats: logpWithSkill - logpNoSkill };
}

/**
 * On `episodes` held-out tasks of `split`, the mean log-prob of the expert's action at each visited state without
 * and with its step skill (canonical phrasing) in the prompt. States: the expert's own path (`noise` 0, default), or
 * the path of a demonstrator that takes a random admissible action with probability `noise` (drawn from `rng`), so
 * the expert action is a recovery the state alone does not reveal and only a policy that reads the skill's words
 * gains there. Also per task type. @throws Error if `noise` > 0 without `rng`.
 */
export async function skillSensitivity(
  policy: PolicyHandle,
  spec: EnvSpec,
  o: {
    preset: string;
    split: Split;
    episodes: number;
    historyTurns: number;
    maxActionTokens: number;
    noise?: number;
    rng?: Rng;
  },
): Promise<SkillSensitivity> {
  const noise = o.noise ?? 0;
  if (noise > 0 && !o.rng) throw new Error('skillSensitivity: noise > 0 needs an rng');
  const { tok, cfg } = policy;
  const eos = tok.special('<eos>');
  const plain: ScoreSample[] = [],
    hinted: ScoreSample[] = [];
  const types: string[] = [];
  for (let index = 0; index < o.episodes; index++) {
    const env = spec.create(o.preset);
    const r = env.reset({ split: o.split, index });
    const ex = spec.expert(env);
    const hist: Turn[] = [];
    let obs = r.observation;
    for (let t = 0; t < env.maxSteps; t++) {
      const adm = env.admissibleActions();
      const a = ex.act();
      const response = [...actionTokens(tok, a), eos];
      const trie = admissibleTrie(tok, adm);
      const allowed = response.map((_, k) => trie.allowed(response.slice(0, k)));
      const base = { task: r.task, history: hist, observation: obs, admissible: adm, historyTurns: o.historyTurns };
      plain.push({ prompt: buildPrompt(tok, base, cfg.maxSeq - o.maxActionTokens), response, allowed });
      hinted.push({
        prompt: buildPrompt(tok, { ...base, stepSkill: stepSkill(a) }, cfg.maxSeq - o.maxActionTokens),
        response,
        allowed,
      });
      types.push(r.taskType);
      const taken = noise > 0 && o.rng!.next() < noise ? o.rng!.pick(adm) : a;
      const st = env.step(taken);
      hist.push({ action: taken, observation: st.observation });
      obs = st.observation;
      if (st.done) break;
    }
  }
  const lp = (await scoreSamples(policy.params, cfg, plain, policy.freeRow)).logp;
  const lh = (await scoreSamples(policy.params, cfg, hinted, policy.freeRow)).logp;
  const byType = new Map<string, number[]>();
  types.forEach((t, i) => (byType.get(t) ?? byType.set(t, []).get(t)!).push(i));
  const byTaskType: Record<string, SensitivityStats> = {};
  for (const [t, idx] of byType) byTaskType[t] = stats(lp, lh, idx);
  return {
    ...stats(
      lp,
      lh,
      types.map((_, i) => i),
    ),
    byTaskType,
  };
}
