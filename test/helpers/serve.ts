/**
 * Helpers of the `npm run serve` tests (test/cli/serve*.test.ts): an in-process server on a free port, JSON requests
 * to it, and analyzer groups played by the env's expert with seeded noise (some trajectories succeed, some fail).
 */
import { startServer, type RunningServer, type ServeOptions } from '../../cli/serve';
import { discountedReturns } from '../../src/core/math/returns';
import { Rng } from '../../src/core/rng';
import {
  isOpenAction,
  type AnalyzerGroup,
  type AnalyzerTrajectory,
  type EnvSpec,
  type Split,
} from '../../src/core/envs/types';

/** A server on 127.0.0.1 and a free port; `base` is its root URL. */
export async function testServer(o: Partial<ServeOptions> = {}): Promise<RunningServer & { base: string }> {
  const s = await startServer({ host: '127.0.0.1', port: 0, maxEnvs: 1024, idleSeconds: 600, expert: false, ...o });
  return { ...s, base: `http://127.0.0.1:${s.port}` };
}

/** A reply: status and parsed JSON body (null when the body is not JSON). */
export interface Reply {
  status: number;
  // Bodies are checked field by field in the tests.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** POST `body` (a value sent as JSON, or a string sent as is) to `base + path`. */
export async function post(base: string, path: string, body: unknown): Promise<Reply> {
  const r = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: r.status, body: parsed };
}

/** GET `base + path`. */
export async function get(base: string, path: string): Promise<Reply> {
  const r = await fetch(base + path);
  return { status: r.status, body: await r.json().catch(() => null) };
}

/**
 * One episode of task (split, index) played by the expert, each step replaced with probability `noise` by a seeded
 * draw from the admissible actions (an open form completed with `red shoes]`), as the analyzer sees it (returns with
 * γ = 0.95, as src/core/algorithms/analysis.ts).
 */
export function noisyEpisode(
  spec: EnvSpec,
  preset: string,
  ref: { split: Split; index: number },
  rng: Rng,
  noise: number,
): AnalyzerTrajectory {
  const env = spec.create(preset);
  const r = env.reset(ref);
  const expert = spec.expert(env);
  let observation = r.observation;
  const steps: { observation: string; action: string; valid: boolean }[] = [];
  const rewards: number[] = [];
  let success = false;
  for (;;) {
    const admissible = env.admissibleActions();
    let action = expert.act();
    if (rng.next() < noise && admissible.length) {
      action = rng.pick(admissible);
      if (isOpenAction(action)) action += 'red shoes]';
    }
    const s = env.step(action);
    steps.push({ observation, action, valid: s.valid });
    rewards.push(s.reward);
    observation = s.observation;
    success ||= s.success;
    if (s.done) break;
  }
  const G = discountedReturns(rewards);
  return { task: r.task, success, finalObservation: observation, steps: steps.map((s, i) => ({ ...s, return: G[i] })) };
}

/** Noise of the 8 trajectories of a test group: two pure expert runs, the others more and more off course. */
export const GROUP_NOISE = [0, 0.3, 0.6, 1, 0, 0.2, 0.5, 0.9];

/** A group of `GROUP_NOISE.length` noisy episodes of one train task. */
export function noisyGroup(spec: EnvSpec, preset: string, index: number, seed: number): AnalyzerGroup {
  const rng = new Rng(seed);
  const trajectories = GROUP_NOISE.map((p) => noisyEpisode(spec, preset, { split: 'train', index }, rng, p));
  return { env: spec.name, trajectories };
}
