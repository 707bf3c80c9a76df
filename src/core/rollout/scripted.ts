/**
 * Episodes played by a policy that is not a model — the env's expert, a uniform draw from the admissible actions, a
 * scripted list of actions — recorded as the same `Trajectory` a model's rollout gives (runner.ts), with no prompt or
 * response tokens, so an evaluation summarises both alike (`npm run eval -- --policy expert|random`).
 */
import type { Env, EnvSpec, ResetResult, TaskRef } from '../envs/types';
import type { Trajectory } from './types';

/** A trajectory of task `ref` just after its reset `r`: no steps yet, reward 0, not a success, 0 invalid actions. */
export function openTrajectory(ref: TaskRef, r: ResetResult): Trajectory {
  return {
    ref,
    task: r.task,
    taskType: r.taskType,
    initialObservation: r.observation,
    steps: [],
    reward: 0,
    success: false,
    invalidCount: 0,
    finalObservation: r.observation,
  };
}

/**
 * A non-model policy for one episode: given the episode's env (reset to its task), its ref and what the reset returned
 * (the task line, the first observation), the function that names the next action each time it is called (it may
 * read the env: its admissible actions, or its hidden state through the expert).
 */
export type ScriptedPolicy = (env: Env, ref: TaskRef, start: ResetResult) => () => string;

/**
 * Play one episode per ref with `policy`, each on a fresh env of `spec`'s `preset`, until the env says done.
 * Recorded as runner.ts records a model's episode: steps with their observation, admissible list, action, validity
 * and reward (empty token fields); reward R(τ) = Σ rewards; success as the last step says; `metrics` the env's
 * `StepResult.info` of the latest step that carried one.
 * @throws Error from the env on a bad ref, or from the policy.
 */
export function playScripted(
  spec: EnvSpec,
  preset: string,
  refs: readonly TaskRef[],
  policy: ScriptedPolicy,
): Trajectory[] {
  return refs.map((ref) => {
    const env = spec.create(preset);
    const r = env.reset(ref);
    const act = policy(env, ref, r);
    const t = openTrajectory(ref, r);
    let obs = r.observation;
    for (;;) {
      const admissible = env.admissibleActions();
      const action = act();
      const st = env.step(action);
      t.steps.push({
        observation: obs,
        admissible,
        prompt: [],
        response: [],
        allowed: [],
        sampleLogp: [],
        sampleEntropy: [],
        action,
        valid: st.valid,
        reward: st.reward,
      });
      t.reward += st.reward;
      if (!st.valid) t.invalidCount++;
      if (st.info) t.metrics = { ...st.info };
      obs = st.observation;
      t.finalObservation = st.observation;
      if (st.done) {
        t.success = st.success;
        return t;
      }
    }
  });
}
