/**
 * Test helpers for an env's embedded analyzer: episodes played through the real env (any env on the plugin
 * interface), recorded as the analyzer sees them. Each env's analyzer tests bind them to their env and preset.
 */
import type { AnalyzerTrajectory, Env, EnvSpec, TaskRef } from '../../../src/core/envs/types';
import { discountedReturns } from '../../../src/core/math/returns';
import { STEP_TEMPLATES } from '../../../src/core/skills/grammar';

/** One played episode: the trajectory as the analyzer sees it, each step's admissible list, the actions taken. */
export interface Played {
  ref: TaskRef;
  traj: AnalyzerTrajectory;
  admissible: string[][];
  actions: string[];
}

/**
 * What to do at each step: an action string, null for the expert's action, undefined to stop recording (the
 * trajectory ends there, as a cut-off episode). Called with the env (for its admissible list and hidden state), the
 * step number, the expert's action there and the observation the step answers.
 */
export type Chooser<E extends Env> = (
  env: E,
  step: number,
  expert: string,
  observation: string,
) => string | null | undefined;

/** The helpers bound to one env and preset. */
export interface PlayHelpers<E extends Env> {
  /** Play task `ref` with `choose` until the episode ends (done) or `choose` stops it. */
  play(ref: TaskRef, choose: Chooser<E>): Played;
  /** Play a fixed action list (null = the expert's action) until it runs out or the episode ends. */
  playActions(ref: TaskRef, actions: readonly (string | null)[]): Played;
  /**
   * Replay the first `upTo` of `actions` on a fresh env of `ref`, then take `action`: its step result and the
   * admissible list it was taken from.
   */
  tryAt(
    ref: TaskRef,
    actions: readonly string[],
    upTo: number,
    action: string,
  ): { admissible: string[]; result: ReturnType<Env['step']> };
}

/** The play helpers of `spec`'s env at `preset` (`E`: the env's own class, for choosers that read hidden state). */
export function playHelpers<E extends Env>(spec: EnvSpec, preset: string): PlayHelpers<E> {
  const play = (ref: TaskRef, choose: Chooser<E>): Played => {
    const env = spec.create(preset) as E;
    const expert = spec.expert(env);
    const r = env.reset(ref);
    let obs = r.observation,
      success = false,
      done = false;
    const steps: { observation: string; action: string; valid: boolean; reward: number }[] = [];
    const admissible: string[][] = [];
    while (!done) {
      const e = expert.act();
      const chosen = choose(env, steps.length, e, obs);
      if (chosen === undefined) break;
      const action = chosen ?? e;
      admissible.push([...env.admissibleActions()]);
      const st = env.step(action);
      steps.push({ observation: obs, action, valid: st.valid, reward: st.reward });
      obs = st.observation;
      success ||= st.success;
      done = st.done;
    }
    const G = discountedReturns(steps.map((s) => s.reward));
    return {
      ref,
      admissible,
      actions: steps.map((s) => s.action),
      traj: {
        task: r.task,
        success,
        finalObservation: obs,
        steps: steps.map((s, i) => ({ observation: s.observation, action: s.action, valid: s.valid, return: G[i] })),
      },
    };
  };
  return {
    play,
    playActions: (ref, actions) => play(ref, (_env, step) => (step < actions.length ? actions[step] : undefined)),
    tryAt(ref, actions, upTo, action) {
      const env = spec.create(preset);
      env.reset(ref);
      for (let i = 0; i < upTo; i++) env.step(actions[i]);
      const admissible = [...env.admissibleActions()];
      return { admissible, result: env.step(action) };
    },
  };
}

/** The action inside a step skill, from the grammar's templates (null if the text fits none). */
export function actionOf(skill: string): string | null {
  for (const t of STEP_TEMPLATES) {
    const [pre, post] = t.split('{a}');
    if (skill.startsWith(pre) && skill.endsWith(post)) return skill.slice(pre.length, skill.length - post.length);
  }
  return null;
}
