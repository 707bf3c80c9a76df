/**
 * The privileged `oracle` analyzer on real household episodes (no stubs):
 * (1) trajectories made by playing the expert with hand-chosen wrong-but-admissible actions inserted: its step skills
 *     sit exactly at the deviating steps (the first K), each naming the expert's action in that state, its episode
 *     skill is the expert's plan (`correctEpisodeSkill`); an expert-only trajectory gets no step skill; `failedOnly`
 *     skips successes; an altered observation, another preset or a missing `ref` fail the trajectory with a reason.
 * (2) the shipped base policy, with the oracle's episode skill in its prompt and the oracle's step skill for the state
 *     reached at every step, reaches the `both`-hint success rate of the base manifest (within 3 standard errors).
 * (3) a 2-step OPID run with `analyzer: 'oracle'` reports analyzer calls and no failures and leaves no tensor behind.
 */
import { openTrajectory } from '../../../src/core/rollout/scripted';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { household } from '../../../src/core/envs/household';
import type { Env, EnvSpec, ResetResult, StepResult, TaskRef } from '../../../src/core/envs/types';
import { toAnalyzerGroup } from '../../../src/core/algorithms/analysis';
import { makeAnalyzer } from '../../../src/core/analyzer';
import { OracleAnalyzer, ORACLE_FAILURES, oracleSkills, replayExpert } from '../../../src/core/analyzer/oracle';
import type { AnalyzerGroup, AnalyzerStep, AnalyzerTrajectory } from '../../../src/core/analyzer/types';
import type { StepRecord, Trajectory } from '../../../src/core/rollout/types';
import { runEpisodes } from '../../../src/core/rollout/runner';
import { summarize } from '../../../src/core/rollout/evaluate';
import { buildTokenizer, disposePolicy, loadPolicy, type PolicyHandle } from '../../../src/core/model/policy';
import type { BaseManifest } from '../../../src/core/pretrain/base';
import { parseRunConfig } from '../../../src/core/run/config';
import { stepSkill } from '../../../src/core/skills/grammar';
import { correctEpisodeSkill, correctStepSkill } from '../../../src/core/envs/expert-hints';
import { train } from '../../../src/core/train/trainer';
import type { StepEvent, TrainEvent } from '../../../src/core/train/events';
import { Rng } from '../../../src/core/rng';
import { loadBaseFiles } from '../../../cli/base';
import { useBackend } from '../../helpers/backend';

/** Picks the wrong action at an inserted step from the admissible ones and the expert's. */
type Pick = (admissible: string[], expert: string) => string;
/** Another place than the expert's: the last admissible `go to` that is not the expert's action. */
const otherPlace: Pick = (adm, ex) => adm.filter((a) => a.startsWith('go to') && a !== ex).at(-1)!;
/** An admissible action that is not the expert's: the first such in the env's order. */
const firstOther: Pick = (adm, ex) => adm.find((a) => a !== ex)!;

/** A played episode: its rollout record and the expert's action in the state of each step. */
interface Played {
  traj: Trajectory;
  expert: string[];
  /** Steps whose action was inserted (not the expert's). */
  inserted: number[];
}

/**
 * Play `ref` on household/`preset` with the expert, taking `wrong[t](admissible, expert)` instead at step t, as a
 * rollout Trajectory (the analyzer sees it through `toAnalyzerGroup`, as in training).
 */
function play(ref: TaskRef, wrong: Record<number, Pick> = {}, preset = 'easy'): Played {
  const env = household.create(preset);
  const r = env.reset(ref);
  const ex = household.expert(env);
  const traj: Trajectory = openTrajectory(ref, r);
  const expert: string[] = [],
    inserted: number[] = [];
  for (let t = 0; t < env.maxSteps; t++) {
    const e = ex.act();
    const adm = env.admissibleActions();
    const action = wrong[t] ? wrong[t](adm, e) : e;
    expect(action, `step ${t}`).toBeTruthy();
    if (action !== e) inserted.push(t);
    expert.push(e);
    const st = env.step(action);
    traj.steps.push(record(traj.finalObservation, adm, action, st));
    traj.reward += st.reward;
    if (!st.valid) traj.invalidCount++;
    traj.success ||= st.success;
    traj.finalObservation = st.observation;
    if (st.done) break;
  }
  return { traj, expert, inserted };
}

/** A step record as the runner writes it, without the model's fields (the analyzer reads none of them). */
function record(observation: string, admissible: string[], action: string, st: StepResult): StepRecord {
  const none = { prompt: [], response: [], allowed: [], sampleLogp: [], sampleEntropy: [] };
  return { observation, admissible, action, valid: st.valid, reward: st.reward, ...none };
}

const group = (...ps: Played[]): AnalyzerGroup =>
  toAnalyzerGroup(
    'household',
    ps.map((p) => p.traj),
  );
const oracle = (maxStepSkills = 5, failedOnly = false, preset = 'easy') =>
  new OracleAnalyzer({ spec: household, preset, maxStepSkills, failedOnly });
/** The step skills the oracle must give: the expert's action at the first K inserted steps. */
const expected = (p: Played, K: number) =>
  Object.fromEntries(p.inserted.slice(0, K).map((t) => [t, stepSkill(p.expert[t])]));

describe('oracle analyzer: skills at the deviating steps', () => {
  it('step skills exactly at the wrong actions inserted, naming the expert action; episode skill = plan', async () => {
    const cases: [TaskRef, Record<number, Pick>][] = [
      [{ split: 'train', index: 0 }, { 0: otherPlace }],
      [
        { split: 'train', index: 1 },
        { 1: otherPlace, 4: firstOther },
      ],
      [
        { split: 'train', index: 3 },
        { 0: otherPlace, 2: firstOther, 3: otherPlace, 6: otherPlace },
      ],
      [
        { split: 'test-seen', index: 7 },
        { 2: firstOther, 3: firstOther },
      ],
    ];
    for (const [ref, wrong] of cases) {
      const p = play(ref, wrong);
      expect(p.traj.success, JSON.stringify(ref)).toBe(true); // the expert recovers from each inserted action
      expect(p.inserted.length).toBe(Object.keys(wrong).length);
      const a = oracle(5);
      const [s] = await a.analyze(group(p));
      expect(s, JSON.stringify(ref)).toEqual({
        episodeSkill: correctEpisodeSkill(household, 'easy', ref),
        stepSkills: expected(p, 5),
      });
      // Each step skill names an action other than the one taken there, admissible in that state.
      for (const t of p.inserted) expect(s!.stepSkills[t]).not.toBe(stepSkill(p.traj.steps[t].action));
      expect(a.stats()).toMatchObject({ calls: 1, failures: 0, failureReasons: {} });
    }
  });

  it('K bounds the step skills to the first K deviations; K 0 gives none', async () => {
    const p = play({ split: 'train', index: 3 }, { 0: otherPlace, 2: firstOther, 3: otherPlace, 6: otherPlace });
    expect(p.inserted).toEqual([0, 2, 3, 6]);
    const [two] = await oracle(2).analyze(group(p));
    expect(two!.stepSkills).toEqual({ 0: stepSkill(p.expert[0]), 2: stepSkill(p.expert[2]) });
    const [none] = await oracle(0).analyze(group(p));
    expect(none!.stepSkills).toEqual({});
    expect(none!.episodeSkill).toBe(two!.episodeSkill);
  });

  it('an inadmissible action is a deviation too (replayed as `Nothing happens.`)', async () => {
    const p = play({ split: 'train', index: 2 }, { 1: () => 'take apple 9 from desk 9' });
    expect(p.traj.steps[1].valid).toBe(false);
    const [s] = await oracle(5).analyze(group(p));
    expect(s!.stepSkills).toEqual({ 1: stepSkill(p.expert[1]) });
  });

  it('an expert-only trajectory gets the plan and no step skill, on easy and default', async () => {
    for (const preset of ['easy', 'default']) {
      const ref: TaskRef = { split: 'test-unseen', index: 4 };
      const p = play(ref, {}, preset);
      expect(p.traj.success).toBe(true);
      const [s] = await oracle(5, false, preset).analyze(group(p));
      expect(s).toEqual({ episodeSkill: correctEpisodeSkill(household, preset, ref), stepSkills: {} });
    }
  });

  it('a failed trajectory (wandering until the step limit) gets step skills at its first K deviations', async () => {
    const wander: Record<number, Pick> = {};
    for (let t = 0; t < 40; t++) wander[t] = otherPlace;
    const p = play({ split: 'train', index: 5 }, wander);
    expect(p.traj.success).toBe(false);
    expect(p.traj.steps.length).toBe(household.create('easy').maxSteps);
    const [s] = await oracle(5).analyze(group(p));
    expect(s!.stepSkills).toEqual(expected(p, 5));
    expect(Object.keys(s!.stepSkills).length).toBe(5);
  });

  it('failedOnly: a success gets null and is not counted; the failure in the same group is analysed', async () => {
    const wander: Record<number, Pick> = {};
    for (let t = 0; t < 40; t++) wander[t] = otherPlace;
    const ok = play({ split: 'train', index: 5 }, { 1: otherPlace });
    const bad = play({ split: 'train', index: 5 }, wander);
    expect([ok.traj.success, bad.traj.success]).toEqual([true, false]);
    const a = oracle(3, true);
    const [s0, s1] = await a.analyze(group(ok, bad));
    expect(s0).toBeNull();
    expect(s1!.stepSkills).toEqual(expected(bad, 3));
    expect(a.stats()).toMatchObject({ calls: 1, failures: 0 });
  });
});

describe('oracle analyzer: a replay that does not match the record fails clearly', () => {
  const base = () => play({ split: 'train', index: 1 }, { 1: otherPlace });

  it('an altered observation: null, counted under its reason; the rest of the group is analysed', async () => {
    const good = base(),
      bad = base();
    bad.traj.steps[2].observation = bad.traj.steps[2].observation.replace('1', '2');
    const a = oracle();
    const [s0, s1] = await a.analyze(group(good, bad));
    expect(s0).not.toBeNull();
    expect(s1).toBeNull();
    expect(a.stats()).toMatchObject({ calls: 2, failures: 1, failureReasons: { [ORACLE_FAILURES.observation]: 1 } });
    expect(() => replayExpert(household, 'easy', group(bad).trajectories[0])).toThrow(/step 2: replayed/);
  });

  it('an altered final observation, validity or outcome fails as well', async () => {
    const fin = base();
    fin.traj.finalObservation = 'Nothing happens.';
    const val = base();
    val.traj.steps[0].valid = false;
    const out = base();
    out.traj.success = false;
    const a = oracle();
    expect(await a.analyze(group(fin, val, out))).toEqual([null, null, null]);
    expect(a.stats().failureReasons).toEqual({
      [ORACLE_FAILURES.observation]: 1,
      [ORACLE_FAILURES.validity]: 1,
      [ORACLE_FAILURES.outcome]: 1,
    });
  });

  it('trajectories of another preset than the oracle was built for: null, not skills for another task', async () => {
    const a = oracle(5, false, 'default');
    expect(await a.analyze(group(base()))).toEqual([null]);
    expect(a.stats().failures).toBe(1);
    expect(Object.keys(a.stats().failureReasons)[0]).toMatch(/^oracle replay diverged/);
  });

  it('a trajectory without ref fails, naming the missing reference', async () => {
    const g = group(base());
    const { ref: _ref, ...noRef } = g.trajectories[0];
    const a = oracle();
    expect(await a.analyze({ env: 'household', trajectories: [noRef] })).toEqual([null]);
    expect(a.stats().failureReasons).toEqual({ [ORACLE_FAILURES.noRef]: 1 });
    expect(() => oracleSkills(household, 'easy', noRef, 5)).toThrow(/no task reference \(ref\)/);
  });

  it('the group of another environment fails every trajectory', async () => {
    const a = oracle();
    expect(await a.analyze({ ...group(base(), base()), env: 'shop' })).toEqual([null, null]);
    expect(a.stats().failureReasons).toEqual({ [ORACLE_FAILURES.env]: 2 });
  });

  it('makeAnalyzer builds it from a run config (env and preset), with no http field needed', async () => {
    const cfg = parseRunConfig({ algo: 'opid', analyzer: 'oracle', preset: 'default', maxStepSkills: 2 });
    const a = makeAnalyzer(cfg);
    expect(a).toBeInstanceOf(OracleAnalyzer);
    expect(a.name).toBe('oracle');
    const p = play({ split: 'train', index: 9 }, { 0: otherPlace }, 'default');
    const [s] = await a.analyze(group(p));
    expect(s!.stepSkills).toEqual(expected(p, 2));
    expect(() => makeAnalyzer({ ...cfg, preset: 'nope' })).toThrow(/nope/);
  });
});

/** A household env that records what it answered, so the oracle can replay the episode so far. */
class RecordingEnv implements Env {
  ref: TaskRef | undefined;
  task = '';
  obs = '';
  record: AnalyzerStep[] = [];
  constructor(readonly inner: Env) {}
  reset(ref: TaskRef): ResetResult {
    const r = this.inner.reset(ref);
    [this.ref, this.task, this.obs, this.record] = [ref, r.task, r.observation, []];
    return r;
  }
  step(action: string): StepResult {
    const st = this.inner.step(action);
    this.record.push({ observation: this.obs, action, valid: st.valid, return: 0 });
    this.obs = st.observation;
    return st;
  }
  admissibleActions(): string[] {
    return this.inner.admissibleActions();
  }
  get steps(): number {
    return this.inner.steps;
  }
  get maxSteps(): number {
    return this.inner.maxSteps;
  }
  /** The episode so far as the analyzer sees it (not over: success false). */
  trajectory(): AnalyzerTrajectory {
    return { ref: this.ref, task: this.task, success: false, finalObservation: this.obs, steps: [...this.record] };
  }
}

/**
 * The base policy plays test-seen tasks 0..n−1 with the oracle's skills in its prompt (`both`: its episode skill, and
 * at every step its step skill for the state reached; `step`: the step skill only), as the manifest's hinted rates
 * were measured (temperature 0.4, admissible decoding). Returns the success rate, the steps hinted and how many of
 * those step skills differ from the expert's hint in the live env (`correctStepSkill`).
 */
async function oracleHinted(
  policy: PolicyHandle,
  o: { n: number; mode: 'step' | 'both'; historyTurns: number; maxActionTokens: number },
): Promise<{ success: number; steps: number; differ: number }> {
  const envs: RecordingEnv[] = [];
  const spec: EnvSpec = {
    ...household,
    create: (preset) => envs[envs.push(new RecordingEnv(household.create(preset))) - 1],
    expert: (env) => household.expert((env as RecordingEnv).inner),
  };
  const refs = Array.from({ length: o.n }, (_, index): TaskRef => ({ split: 'test-seen', index }));
  const episode = new Map<number, string>();
  let steps = 0,
    differ = 0;
  const r = await runEpisodes(policy, spec, 'easy', refs, {
    decoding: 'admissible',
    temperature: 0.4,
    historyTurns: o.historyTurns,
    maxActionTokens: o.maxActionTokens,
    rng: new Rng(1).fork(`oracle-hinted/${o.mode}`),
    // The oracle's episode skill: from the task's reset state (a trajectory with no step yet).
    episodeSkill:
      o.mode === 'both'
        ? (i) => {
            if (!episode.has(i)) episode.set(i, oracleSkills(household, 'easy', envs[i].trajectory(), 0).episodeSkill);
            expect(episode.get(i)).toBe(correctEpisodeSkill(household, 'easy', refs[i]));
            return episode.get(i);
          }
        : undefined,
    // The oracle's step skill for the state reached: the expert's action after replaying the episode so far.
    stepSkill: (i, env) => {
      const skill = stepSkill(replayExpert(household, 'easy', envs[i].trajectory()).next!);
      steps++;
      if (skill !== correctStepSkill(household, (env as RecordingEnv).inner)) differ++;
      return skill;
    },
  });
  return { success: summarize(r.trajectories).successRate, steps, differ };
}

describe('oracle skills in the prompt of the shipped base policy', () => {
  let policy: PolicyHandle;
  let manifest: BaseManifest;
  beforeAll(async () => {
    await useBackend('wasm');
    const tok = buildTokenizer(household);
    const base = await loadBaseFiles(household, 'easy', tok);
    manifest = base.manifest;
    policy = loadPolicy(base.bytes, tok);
  });
  afterAll(() => disposePolicy(policy));

  it.each(['step', 'both'] as const)(
    "with the oracle's skills (%s) the base policy reaches the manifest's hinted success rate (3 SE)",
    async (mode) => {
      const want = manifest.measured!['test-seen']![mode]!;
      const n = want.episodes;
      const t0 = performance.now();
      const r = await oracleHinted(policy, {
        n,
        mode,
        historyTurns: manifest.pretrain.historyTurns as number,
        maxActionTokens: manifest.pretrain.maxActionTokens as number,
      });
      const p = want.successRate;
      const se = Math.sqrt(Math.max(p * (1 - p), 0.5 / n) * (1 / n + 1 / want.episodes));
      console.log(
        `oracle-hinted (${mode}) success on test-seen 0..${n - 1}: ${r.success.toFixed(3)}; manifest ${p} over ` +
          `${want.episodes} episodes; 3 SE = ${(3 * se).toFixed(3)}; ${r.steps} steps hinted in ` +
          `${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
      expect(r.differ).toBe(0); // the oracle's step skill is the hint the manifest was measured with
      expect(Math.abs(r.success - p)).toBeLessThanOrEqual(3 * se);
    },
    120_000,
  );
});

describe('oracle analyzer in the trainer', () => {
  beforeAll(() => useBackend('wasm'));

  it('a 2-step OPID run on household/easy: analyzer calls, no failures, no tensor left behind', async () => {
    const n0 = tf.memory().numTensors;
    const evs: TrainEvent[] = [];
    const cfg = {
      init: 'scratch',
      model: 'nano',
      preset: 'easy',
      algo: 'opid',
      analyzer: 'oracle',
      steps: 2,
      tasksPerStep: 2,
      groupSize: 4,
      miniBatches: 2,
      evalEvery: 0,
      seed: 3,
    } as const;
    for await (const e of train(cfg, { backend: 'wasm' })) evs.push(e);
    const steps = evs.filter((e): e is StepEvent => e.event === 'step');
    expect(steps.length).toBe(2);
    for (const s of steps) {
      expect(s.analyzerCalls).toBeGreaterThan(0);
      expect(s.analyzerFailures).toBe(0);
      expect(s.analyzerFailureReasons).toEqual({});
    }
    expect(steps[1].numTensors).toBeLessThanOrEqual(steps[0].numTensors);
    expect(tf.memory().numTensors).toBe(n0);
  }, 120_000);
});
