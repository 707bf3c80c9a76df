/**
 * Demonstrations for behaviour cloning: per train-split task, one episode of one kind, turned into
 * per-step samples (prompt as the policy sees it, response = the demonstrated action + <eos>, with the admissible
 * trie masks so cloning fits the same distribution admissible decoding samples from).
 *
 * Kinds (chosen per task by the seeded rng with `DemoMix` weights):
 * - `noisy`: no hint; a noisy demonstrator — the expert, except that with probability `noise` a uniformly random
 *   admissible action is taken *and demonstrated*. This keeps the base policy competent but far from perfect.
 * - `episode`: the expert's whole plan (from the task's start) as a success episode skill (a random paraphrase). With
 *   probability `episodeNoise` a step is a random admissible action, taken and *not* demonstrated; every other step
 *   demonstrates the expert's action from the current state, so the policy learns to follow a plan after a detour
 *   (the state is off the plan's path; the action is the recovery the expert takes there). `episodeNoise` 0 (the
 *   default) draws nothing extra from the rng, so demonstrations made without it are unchanged.
 * - `step`: off the expert's path as well as on it: at each step, with probability `stepNoise`, a random admissible
 *   action is taken and *not* demonstrated; otherwise the expert's action from the current state (so, after a random
 *   move, a recovery the state alone does not reveal) is demonstrated, with the step skill naming it (probability
 *   `stepHintRate`). Why the off-path states: docs/experiments/base-policy.md#why-the-off-path-step-demonstrations.
 * - `failure`: a failure episode skill naming a wrong admissible action at one step of the episode (the mistake; a
 *   concrete action, never an open form such as `search[`: without one at the drawn step, no skill), its warning
 *   sign and the expert's action there (the fix); expert actions, so the policy learns to avoid the named mistake
 *   and take the fix — never to obey a wrong hint (we teach no misleading hints at all).
 * The expert reads hidden state, so without a hint its search moves look arbitrary to the policy, which then
 * learns to search; with a hint it learns to go where the hint says.
 *
 * Which tasks are demonstrated: train tasks 0..tasks−1, or drawn by task type (`typeWeights`, task-pick.ts). With
 * `rename`, a share of the episodes has every text it shows (task line, observations, actions, hints) rewritten by
 * the env's `demoRenamer`, a consistent renaming of its entities; the env itself steps on the original actions.
 */
import { isOpenAction, type Env, type EnvSpec, type NoiseActions, type RenameNames, type Split } from '../envs/types';
import type { Rng } from '../rng';
import type { Tokenizer } from '../tokenizer/tokenizer';
import type { ScoreSample } from '../model/scoring';
import { actionTokens, buildPrompt, type Turn } from '../rollout/prompt';
import { admissibleTrie } from '../rollout/trie';
import {
  episodeSkill,
  failureSkill,
  stepSkill,
  warningSign,
  EPISODE_TEMPLATES,
  FAILURE_TEMPLATES,
  STEP_TEMPLATES,
} from '../skills/grammar';
import { expertPlanFor } from '../envs/expert-hints';
import { nearestName } from '../near';
import { pickTasks, type TypeWeights } from './task-pick';

/** Demonstration kinds. */
export type DemoKind = 'noisy' | 'episode' | 'step' | 'failure';

/** Relative weights of the demonstration kinds (need not sum to 1). */
export type DemoMix = Record<DemoKind, number>;

/**
 * Default mix: 25% unhinted noisy episodes, 10% episode hints, 55% step hints, 10% failure hints (hint-following is
 * what nano learns slowest).
 */
export const DEFAULT_MIX: DemoMix = { noisy: 0.25, episode: 0.1, step: 0.55, failure: 0.1 };

/** Options of `makeDemos`. */
export interface DemoOptions {
  preset: string;
  /** Number of train-split tasks, one episode each (indices 0..tasks−1 unless `typeWeights` picks others). */
  tasks: number;
  /** Probability that the noisy demonstrator takes (and demonstrates) a random admissible action. */
  noise: number;
  /** Probability that a step of a `step` episode carries the step skill. */
  stepHintRate: number;
  /** Probability that a step of a `step` episode is a random admissible action (taken, not demonstrated). */
  stepNoise: number;
  /**
   * Probability that a step of an `episode` episode is a random admissible action (taken, not demonstrated). Default 0.
   */
  episodeNoise?: number;
  mix: DemoMix;
  historyTurns: number;
  /** Max prompt length in tokens (model maxSeq − max action tokens). */
  maxPrompt: number;
  rng: Rng;
  split?: Split;
  /**
   * Weight per task type (pretrain/task-pick.ts `pickTasks`): which `tasks` tasks are demonstrated. Undefined: tasks
   * 0..tasks−1, as without it.
   */
  typeWeights?: TypeWeights;
  /**
   * Share of episodes whose texts are renamed through the env's `demoRenamer` (EnvSpec; a draw per task from
   * `rng.fork('rename/<index>')`). Default 0: none, and no draw is made.
   */
  rename?: number;
  /** Where renamed episodes' names come from (EnvSpec `demoRenamer`, envs/types.ts `RenameNames`). Default `seen`. */
  renameNames?: RenameNames;
  /**
   * What the noisy demonstrator's random steps take (envs/types.ts `NoiseActions`): `random` (the default), or the
   * env's `plausibleMistake` (a random action where it has none for the step).
   */
  noiseActions?: NoiseActions;
}

/** Demonstration samples and how many of each kind. */
export interface Demos {
  samples: ScoreSample[];
  /** Episode count per kind. */
  episodes: Record<DemoKind, number>;
  /** Samples that carry a hint (episode or step skill). */
  hinted: number;
  /** Episodes whose texts were renamed (`rename`). */
  renamed: number;
}

const KINDS: readonly DemoKind[] = ['noisy', 'episode', 'step', 'failure'];

/**
 * Parse a mix from the CLI: `kind=weight` pairs separated by commas (e.g. `noisy=0.3,step=0.6`); kinds left out keep
 * their weight in `base`. @throws Error naming the bad part, the accepted kinds and the kind a misspelt one most
 * likely meant.
 */
export function parseMix(s: string, base: DemoMix = DEFAULT_MIX): DemoMix {
  const out = { ...base };
  for (const part of s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const m = part.match(/^([a-z]+)=([0-9]*\.?[0-9]+)$/);
    if (!m || !(KINDS as readonly string[]).includes(m[1])) {
      // A misspelt kind (`noise=0.3`) names the kind it most likely meant (nearestName, as every flag's choices).
      const [kind, ...weight] = part.split('=');
      const near =
        weight.length === 1 && !(KINDS as readonly string[]).includes(kind) ? nearestName(kind, KINDS) : null;
      const hint = near === null ? '' : `; did you mean ${near}=${weight[0]}?`;
      throw new Error(
        `mix: "${part}" is not kind=weight with kind one of ${KINDS.join(', ')} and weight ≥ 0 (e.g. ` +
          `noisy=0.3,step=0.6)${hint}`,
      );
    }
    out[m[1] as DemoKind] = Number(m[2]);
  }
  if (!KINDS.some((k) => out[k] > 0)) throw new Error('mix: at least one weight must be > 0');
  return out;
}

/** First word of `fix` that `mistake` lacks (the thing the task needs), for the warning sign; falls back to `fix`. */
function difference(mistake: string, fix: string): string {
  const m = new Set(mistake.split(' '));
  return fix.split(' ').find((w) => !m.has(w) && !/^[0-9]+$/.test(w)) ?? fix;
}

/**
 * A failure episode skill for a task: at a random step of the expert's plan, a wrong admissible action (the
 * mistake), its warning sign and the expert's action (the fix). A failure skill is written after the fact, so it
 * is in the prompt from step 0. The mistake is a concrete action: an open form (`search[`, `isOpenAction`) is no
 * action a policy could have taken, so it is never named. Undefined (no failure skill: the episode is demonstrated
 * without one) when the drawn step has no concrete wrong alternative, e.g. a search page that offers only `search[`,
 * or an env whose every action is open.
 */
function failureHint(spec: EnvSpec, preset: string, ref: { split: Split; index: number }, r: Rng): string | undefined {
  const plan = expertPlanFor(spec, preset, ref);
  const at = r.int(plan.length);
  const sim = spec.create(preset);
  sim.reset(ref);
  for (let s = 0; s < at; s++) sim.step(plan[s]);
  const fix = plan[at];
  const wrong = sim.admissibleActions().filter((a) => a !== fix && !isOpenAction(a));
  if (!wrong.length) return undefined;
  const mistake = r.pick(wrong);
  const sign = warningSign(fix.startsWith('take ') ? 'wrongObject' : 'wrongPlace', difference(mistake, fix));
  return failureSkill(mistake, sign, fix, r.int(FAILURE_TEMPLATES.length));
}

/**
 * A uniformly random admissible action; an open one (a free-text prefix such as shop's `search[`,
 * envs/types.ts `isOpenAction`) is completed with 1–4 words of the task line drawn at random and `]`, so a noisy
 * demonstration is an action the sampler can finish (`search[` alone is not one).
 */
export function randomAction(admissible: readonly string[], task: string, r: Rng): string {
  const a = r.pick(admissible);
  if (!isOpenAction(a)) return a;
  const words = task
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => /^[a-z0-9-]+$/.test(w));
  const n = 1 + r.int(4);
  const picked = words.length ? Array.from({ length: n }, () => r.pick(words)) : [];
  return `${a}${picked.join(' ')}]`;
}

/** One demonstration episode of `kind` on task `index`, its samples appended to `out`; `rn` renames its texts. */
function demoEpisode(
  spec: EnvSpec,
  tok: Tokenizer,
  o: DemoOptions & { split: Split; episodeNoise: number },
  e: { index: number; kind: DemoKind; r: Rng; rn: (text: string) => string; eos: number },
  out: Demos,
): void {
  const { kind, r, rn } = e;
  const ref = { split: o.split, index: e.index };
  const env: Env = spec.create(o.preset);
  const reset = env.reset(ref);
  const ex = spec.expert(env);
  let epSkill: string | undefined;
  if (kind === 'episode') epSkill = episodeSkill(expertPlanFor(spec, o.preset, ref), r.int(EPISODE_TEMPLATES.length));
  if (kind === 'failure') epSkill = failureHint(spec, o.preset, ref, r);
  if (epSkill !== undefined) epSkill = rn(epSkill);
  const task = rn(reset.task);
  const hist: Turn[] = [];
  let obs = reset.observation;
  for (let t = 0; t < env.maxSteps; t++) {
    const adm = env.admissibleActions();
    const expert = ex.act();
    let action = expert;
    let sSkill: string | undefined;
    if (kind === 'noisy' && r.next() < o.noise)
      action =
        (o.noiseActions === 'plausible' ? spec.plausibleMistake!(reset.task, obs, r) : undefined) ??
        randomAction(adm, reset.task, r);
    const offPath =
      (kind === 'step' && o.stepNoise > 0 && r.next() < o.stepNoise) ||
      (kind === 'episode' && o.episodeNoise > 0 && r.next() < o.episodeNoise);
    if (offPath)
      action = randomAction(adm, reset.task, r); // off-path: taken, not demonstrated
    else {
      if (kind === 'step' && r.next() < o.stepHintRate) sSkill = rn(stepSkill(expert, r.int(STEP_TEMPLATES.length)));
      const shown = adm.map(rn);
      const prompt = buildPrompt(
        tok,
        {
          task,
          history: hist,
          observation: rn(obs),
          admissible: shown,
          historyTurns: o.historyTurns,
          episodeSkill: epSkill,
          stepSkill: sSkill,
        },
        o.maxPrompt,
      );
      const response = [...actionTokens(tok, rn(action)), e.eos];
      const trie = admissibleTrie(tok, shown);
      out.samples.push({ prompt, response, allowed: response.map((_, k) => trie.allowed(response.slice(0, k))) });
      if (epSkill || sSkill) out.hinted++;
    }
    const st = env.step(action);
    hist.push({ action: rn(action), observation: rn(st.observation) });
    obs = st.observation;
    if (st.done) break;
  }
}

/**
 * Generate demonstrations, deterministically from `o.rng`.
 * @throws Error if `tasks` < 1, `episodeNoise` is outside [0, 1), `rename` outside [0, 1] or above 0 on an env
 *   without `demoRenamer`, `noiseActions` is `plausible` on an env without `plausibleMistake`, or a weight is
 *   negative or all are 0; `pickTasks`'s errors for `typeWeights`.
 */
export function makeDemos(spec: EnvSpec, tok: Tokenizer, o: DemoOptions): Demos {
  if (!(o.tasks >= 1)) throw new Error(`makeDemos: tasks must be ≥ 1, got ${o.tasks}`);
  const weights = KINDS.map((k) => o.mix[k]);
  if (weights.some((w) => !(w >= 0)) || !weights.some((w) => w > 0))
    throw new Error('makeDemos: mix weights must be ≥ 0 and not all 0');
  const total = weights.reduce((a, b) => a + b, 0);
  const eos = tok.special('<eos>');
  const split = o.split ?? 'train';
  const episodeNoise = o.episodeNoise ?? 0;
  if (!(episodeNoise >= 0 && episodeNoise < 1))
    throw new Error(`makeDemos: episodeNoise must be in [0, 1), got ${o.episodeNoise}`);
  const rename = o.rename ?? 0;
  if (!(rename >= 0 && rename <= 1)) throw new Error(`makeDemos: rename must be in [0, 1], got ${o.rename}`);
  if (rename > 0 && !spec.demoRenamer)
    throw new Error(`makeDemos: ${spec.name} has no names to rename (EnvSpec.demoRenamer); leave rename at 0`);
  if (o.noiseActions === 'plausible' && !spec.plausibleMistake)
    throw new Error(
      `makeDemos: ${spec.name} has no plausible mistakes (EnvSpec.plausibleMistake); leave noiseActions at random`,
    );
  const out: Demos = { samples: [], episodes: { noisy: 0, episode: 0, step: 0, failure: 0 }, hinted: 0, renamed: 0 };
  const picked = pickTasks(spec, { preset: o.preset, split, tasks: o.tasks, weights: o.typeWeights, rng: o.rng });
  for (const index of picked) {
    const r = o.rng.fork(`demo/${index}`);
    let u = r.next() * total,
      ki = 0;
    while (ki < KINDS.length - 1 && (u -= weights[ki]) >= 0) ki++;
    out.episodes[KINDS[ki]]++;
    const renamed = rename > 0 && o.rng.fork(`rename/${index}`).next() < rename;
    if (renamed) out.renamed++;
    const rn = renamed
      ? spec.demoRenamer!(o.rng.fork(`rename/${index}/names`), o.renameNames ?? 'seen')
      : (t: string) => t;
    demoEpisode(spec, tok, { ...o, split, episodeNoise }, { index, kind: KINDS[ki], r, rn, eos }, out);
  }
  return out;
}
