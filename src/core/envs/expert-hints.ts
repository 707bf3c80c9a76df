/**
 * Correct hints from the expert: used to build hint-conditioned demonstrations and for hinted
 * evaluation (`eval --hints`). These read the environment's hidden state through the expert, so they are an
 * oracle for pretraining and measurement — the `heuristic` and `http` analyzers never use them; only the privileged
 * `oracle` analyzer (analyzer/oracle.ts) does, as the ceiling of what skills can give.
 */
import type { Env, EnvSpec, TaskRef } from './types';
import { episodeSkill, stepSkill } from '../skills/grammar';

/**
 * Which hints a hinted rollout gets: none, the episode skill of a successful trajectory of the same task (the
 * expert's), a step skill at every step (on `easy` every expert step is a decision, so every step is critical), or
 * both. A "correct hint" is either of the first two; `eval --hints correct` means `step`.
 */
export type HintMode = 'none' | 'episode' | 'step' | 'both';

/** Accepted hint modes, for CLI/config validation. */
export const HINT_MODES: readonly HintMode[] = ['none', 'episode', 'step', 'both'];

/** A hint-mode name from the CLI: one of HINT_MODES, or `correct` (= `step`). Undefined for anything else. */
export function parseHintMode(s: string): HintMode | undefined {
  if (s === 'correct') return 'step';
  return (HINT_MODES as readonly string[]).includes(s) ? (s as HintMode) : undefined;
}

/**
 * The expert's whole action sequence for a task from its initial state (a successful trajectory of that task),
 * run on a fresh env so the caller's env is untouched. At most the env's maxSteps actions.
 * @throws Error from the env on a bad ref.
 */
export function expertPlanFor(spec: EnvSpec, preset: string, ref: TaskRef): string[] {
  const env = spec.create(preset);
  env.reset(ref);
  const ex = spec.expert(env);
  const plan: string[] = [];
  while (plan.length < env.maxSteps) {
    const a = ex.act();
    plan.push(a);
    const st = env.step(a);
    if (st.done) break;
  }
  return plan;
}

/** The episode skill "of a successful trajectory of the same task": the expert's plan in the canonical phrasing. */
export function correctEpisodeSkill(spec: EnvSpec, preset: string, ref: TaskRef, variant = 0): string {
  return episodeSkill(expertPlanFor(spec, preset, ref), variant);
}

/** The correct step skill in an env's current state: the expert's next action, phrased as a step skill. */
export function correctStepSkill(spec: EnvSpec, env: Env, variant = 0): string {
  return stepSkill(spec.expert(env).act(), variant);
}

/**
 * Rollout hooks for a hint mode over a list of task refs: `episodeSkill(i)` and `stepSkill(i, env)` as
 * `runEpisodes` takes them (undefined where the mode gives none).
 */
export function hintHooks(
  spec: EnvSpec,
  preset: string,
  refs: readonly TaskRef[],
  mode: HintMode,
): {
  episodeSkill?: (i: number, taskType: string) => string | undefined;
  stepSkill?: (i: number, env: Env) => string | undefined;
} {
  const out: ReturnType<typeof hintHooks> = {};
  if (mode === 'episode' || mode === 'both') {
    const skills = refs.map((r) => correctEpisodeSkill(spec, preset, r));
    out.episodeSkill = (i) => skills[i];
  }
  if (mode === 'step' || mode === 'both') out.stepSkill = (_i, env) => correctStepSkill(spec, env);
  return out;
}
