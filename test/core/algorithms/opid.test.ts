import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../../helpers/backend';
import { train, type TrainOptions } from '../../../src/core/train/trainer';
import type { StepEvent, TrainEvent, TrajectoriesEvent } from '../../../src/core/train/events';
import type { PolicyHandle } from '../../../src/core/model/policy';
import { runEpisodes } from '../../../src/core/rollout/runner';
import { policyValues, buildTokenizer, createPolicy, disposePolicy } from '../../../src/core/model/policy';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { Rng } from '../../../src/core/rng';
import { rebuildPrompt } from '../../../src/core/algorithms/opid';
import type { Analyzer, AnalyzerStats } from '../../../src/core/analyzer/types';
import type { RunConfig } from '../../../src/core/run/config';

const tiny: Partial<RunConfig> = {
  init: 'scratch',
  model: 'nano',
  preset: 'easy',
  steps: 1,
  tasksPerStep: 2,
  groupSize: 4,
  miniBatches: 2,
  evalEvery: 0,
  seed: 5,
};

async function run(
  cfg: Partial<RunConfig>,
  extra: Partial<TrainOptions> = {},
): Promise<{ events: TrainEvent[]; weights: Map<string, Float32Array> }> {
  const events: TrainEvent[] = [];
  let pol: PolicyHandle | undefined;
  let weights = new Map<string, Float32Array>();
  for await (const e of train(cfg, { backend: 'wasm', onPolicy: (p) => (pol = p), ...extra })) {
    events.push(e);
    if (e.event === 'done') weights = await policyValues(pol!);
  }
  return { events, weights };
}
const steps = (ev: TrainEvent[]) => ev.filter((e): e is StepEvent => e.event === 'step');

/** An analyzer scripted by a function; counts calls. */
function fake(fn: (n: number) => unknown): Analyzer {
  const s: AnalyzerStats = { calls: 0, failures: 0, latencyMs: 0, failureReasons: {} };
  return {
    name: 'fake',
    async analyze(g) {
      s.calls += g.trajectories.length;
      return fn(g.trajectories.length) as never;
    },
    stats: () => s,
  };
}

describe('OPID in the trainer', () => {
  beforeAll(() => useBackend('wasm'));

  it('a skill prompt without skills rebuilds the rollout prompt exactly', async () => {
    const spec = getEnvSpec('household');
    const p = createPolicy('nano', buildTokenizer(spec), new Rng(1));
    const refs = [0, 1, 2].map((index) => ({ split: 'train' as const, index }));
    for (const H of [1, 3]) {
      const r = await runEpisodes(p, spec, 'easy', refs, {
        decoding: 'admissible',
        temperature: 1,
        historyTurns: H,
        maxActionTokens: 12,
        rng: new Rng(2),
      });
      for (const t of r.trajectories)
        t.steps.forEach((s, i) => expect(rebuildPrompt(p, t, i, H, 12, {})).toEqual(s.prompt));
    }
    disposePolicy(p);
  });

  it(
    'costs exactly GRPO plus the skill re-scoring passes; with λ_skill = 0 it makes the same update as ' + 'GRPO',
    async () => {
      const g = await run({ ...tiny, algo: 'grpo' });
      const o = await run({ ...tiny, algo: 'opid', lambdaSkill: 0 });
      const [gs] = steps(g.events),
        [os] = steps(o.events);
      expect(os.forwardTokens.rollout).toBe(gs.forwardTokens.rollout);
      expect(os.forwardTokens.old).toBe(gs.forwardTokens.old);
      expect(os.forwardTokens.ref).toBe(gs.forwardTokens.ref);
      expect(os.forwardTokens.update).toBe(gs.forwardTokens.update);
      expect(gs.forwardTokens.skill).toBe(0);
      expect(os.forwardSequences).toEqual({ ...gs.forwardSequences, skill: gs.samples });
      // Old log-probs come from the sampler (no pass); with β = 0 the reference scores only the first group (the
      // viewer's).
      const shown = g.events
        .find((e): e is TrajectoriesEvent => e.event === 'trajectories' && e.step === 1)!
        .group.reduce((n, t) => n + t.steps.length, 0);
      expect(gs.forwardSequences).toEqual({ rollout: gs.samples, old: 0, ref: shown, skill: 0, update: gs.samples });
      expect(gs.forwardTokens.old).toBe(0);
      // Critical-first with the heuristic analyzer: every step is re-scored with exactly one skill prompt.
      expect(os.forwardTokens.skill).toBeGreaterThan(0);
      const add = await run({ ...tiny, algo: 'opid', lambdaSkill: 0, ablation: 'additive' });
      const [as] = steps(add.events);
      expect(as.forwardSequences.skill).toBeGreaterThan(gs.samples); // critical steps are scored twice
      expect(os.skillActiveTokenRatio).toBe(1);
      expect(os.analyzerCalls).toBe(8);
      for (const [k, v] of g.weights) expect(Array.from(o.weights.get(k)!)).toEqual(Array.from(v));
      const o2 = await run({ ...tiny, algo: 'opid', lambdaSkill: 1 });
      expect(steps(o2.events)[0].teacherShare).toBeGreaterThan(0);
      expect(Array.from(o2.weights.get('wte')!)).not.toEqual(Array.from(g.weights.get('wte')!));
    },
  );

  it(
    'an analyzer that throws or returns nulls: the run goes on, failures counted with reasons, no skill ' + 'signal',
    async () => {
      const boom = fake(() => {
        throw new Error('HTTP 500 (server error)');
      });
      const r = await run({ ...tiny, algo: 'opid', lambdaSkill: 1 }, { analyzer: boom });
      const [s] = steps(r.events);
      expect(s.analyzerFailures).toBe(8);
      expect(s.analyzerFailureReasons).toEqual({ 'analyzer failed: HTTP 500 (server error)': 8 });
      expect(s.skillActiveTokenRatio).toBe(0);
      expect(s.teacherShare).toBe(0);
      expect(r.events.at(-1)!.event).toBe('done');
      const view = r.events.find((e): e is TrajectoriesEvent => e.event === 'trajectories')!;
      expect(view.group[0].analyzerError).toBe('analyzer failed: HTTP 500 (server error)');
    },
  );

  it('an episode skill given to the runner is in every prompt, right after the task line', async () => {
    const spec = getEnvSpec('household');
    const p = createPolicy('nano', buildTokenizer(spec), new Rng(1));
    const r = await runEpisodes(p, spec, 'easy', [{ split: 'train', index: 0 }], {
      decoding: 'admissible',
      temperature: 1,
      historyTurns: 1,
      maxActionTokens: 12,
      rng: new Rng(2),
      episodeSkill: () => 'plan: go to desk 1.',
    });
    const sk = p.tok.special('<skill>');
    const skillIds = p.tok.encode(' plan: go to desk 1.');
    for (const s of r.trajectories[0].steps) {
      const at = s.prompt.indexOf(sk);
      expect(at).toBe(2 + p.tok.encode(' ' + r.trajectories[0].task).length);
      expect(s.prompt.slice(at + 1, at + 1 + skillIds.length)).toEqual(skillIds);
    }
    disposePolicy(p);
  });

  it('Skill-GRPO injects remembered skills into rollout prompts from the next step on', async () => {
    const skill = 'plan: go to desk 1.';
    const a = fake((n) => Array.from({ length: n }, () => ({ episodeSkill: skill, stepSkills: {} })));
    const r = await run({ ...tiny, algo: 'skill-grpo', steps: 3, tasksPerStep: 4, seed: 2 }, { analyzer: a });
    const st = steps(r.events);
    const views = r.events.filter((e): e is TrajectoriesEvent => e.event === 'trajectories');
    const firstWin = st.findIndex((e) => e.successRate > 0);
    expect(firstWin).toBeGreaterThanOrEqual(0);
    expect(firstWin).toBeLessThan(2);
    expect(views[0].group.every((t) => t.episodeSkill === undefined)).toBe(true);
    expect(views[firstWin + 1].group.every((t) => t.episodeSkill === skill)).toBe(true);
    expect(st.every((e) => e.teacherShare === 0 && e.forwardTokens.skill === 0)).toBe(true);
  });
});
