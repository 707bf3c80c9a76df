/**
 * A stored run's trajectories in the rollout explorer (core/run-files/trajectories.ts `detail` and `storedGroup`,
 * worker/runs-library.ts loadStoredTrajectories), and Resume of a run ended by Stop (worker/runs-api.ts resumeRun),
 * with real tiny runs (household/easy from the shipped base policy, B 2 × G 4, wasm):
 * - an OPID run recorded as the page records it, read back from the store: group 0 of every step equals the group
 *   the live explorer held — every per-token vector (ids, A, A_ep, A_skill, ℓ_skill, ℓ_old, ℓ_ref, entropy, ρ)
 *   the same float32 values, every trajectory's S and A_ep, every turn's text, reward, reply, token slice and skill
 *   routing — except the prompts, which are not kept and are named so;
 * - a GRPO run stepped three times (checkpoint at step 2), ended by Stop: the Runs view offers Resume, Resume puts
 *   the stored steps 1–2 back in the explorer with the live numbers, and the continued step events 3–4 equal those
 *   of an uninterrupted run; the record ends done and no longer stopped.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { train } from '../../src/core/train/trainer';
import type { TrainEvent } from '../../src/core/train/events';
import type { GroupDetail } from '../../src/core/train/step-detail';
import { parseRunConfig } from '../../src/core/run/config';
import { NOT_KEPT_PROMPTS } from '../../src/core/run-files/trajectories';
import { getEnvSpec } from '../../src/core/envs/registry';
import { buildTokenizer } from '../../src/core/model/policy';
import { PageRuns, listRuns, loadStoredTrajectories } from '../../src/worker/runs-library';
import { TrajectoryStore } from '../../src/worker/trajectory-store';
import { explorerGroup } from '../../src/worker/explorer-view';
import type { ExplorerGroup } from '../../src/worker/api';
import { TrainingSession } from '../../src/worker/session';
import { runsApi } from '../../src/worker/runs-api';
import { resumability } from '../../src/ui/state/runs-view';
import { mapStore } from './map-run-store';
import { loadBaseFiles } from '../../cli/base';
import { useBackend } from '../helpers/backend';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);
let base: Uint8Array;
beforeAll(async () => {
  await useBackend('wasm');
  base = (await loadBaseFiles(spec, 'easy', tok)).bytes;
}, 120_000);

const TINY = {
  model: 'nano',
  preset: 'easy',
  tasksPerStep: 2,
  groupSize: 4,
  miniBatches: 2,
  evalEvery: 0,
  seed: 3,
  learningRate: 1e-3,
} as const;
const TIMING = ['tokensPerSecond', 'stepMs', 'elapsedMs', 'phaseMs', 'numTensors'];
const steps = (evs: TrainEvent[]) =>
  evs
    .filter((e) => e.event === 'step')
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !TIMING.includes(k))));

/** The explorer's view of a group without its prompts and without `stored` (what a stored group keeps). */
function withoutPrompts(g: ExplorerGroup): unknown {
  const { stored: _s, ...rest } = g;
  return {
    ...rest,
    trajectories: g.trajectories.map((t) => ({ ...t, turns: t.turns.map((u) => ({ ...u, prompt: null })) })),
  };
}

/** Every float32 vector of a group as plain number arrays (NaN kept as NaN; null vectors as null). */
function vectors(g: GroupDetail): Record<string, number[] | null> {
  return Object.fromEntries(
    Object.entries(g.tokens).map(([k, v]) => [k, v ? Array.from(v as ArrayLike<number>) : null]),
  );
}

describe('a stored run in the explorer', () => {
  it(
    "OPID: group 0 of every stored step read back equals the live explorer's, number for number; prompts " +
      'are named as not kept',
    async () => {
      const { store } = mapStore();
      const live = new TrajectoryStore();
      const runs = new PageRuns(
        store,
        () => 1,
        (s) => live.group(s, 0),
      );
      runs.begin({ kind: 'checkpoint', name: 'base' });
      const sink = runs.tap(() => undefined);
      const cfg = parseRunConfig({ ...TINY, algo: 'opid', steps: 3, checkpointEvery: 2 });
      for await (const e of train(cfg, {
        backend: 'wasm',
        initWeights: base,
        checkpoints: true,
        onStepDetail: (d) => live.add(d),
      }))
        sink(e);
      await runs.flush();
      const [info] = (await listRuns(store)).runs;

      const back = new TrajectoryStore();
      const opened = await loadStoredTrajectories(store, info.id, back);
      expect(opened).toMatchObject({
        id: info.id,
        env: 'household',
        algo: 'opid',
        lambdaSkill: cfg.lambdaSkill,
        steps: 3,
        withDetail: 3,
      });
      expect(back.index().steps.map((s) => [s.step, s.groups.map((g) => g.group)])).toEqual([
        [1, [0]],
        [2, [0]],
        [3, [0]],
      ]);
      let skillTokens = 0,
        critical = 0;
      for (const step of [1, 2, 3]) {
        const a = live.group(step, 0)!,
          b = back.group(step, 0)!;
        expect(b.stored).toEqual({ notKept: [NOT_KEPT_PROMPTS], tokens: true });
        expect(vectors(b)).toEqual(vectors(a));
        expect(b.tokens.ratio).not.toBeNull();
        expect(b.taskIndex).toBe(a.taskIndex);
        const [ea, eb] = [explorerGroup(a, tok), explorerGroup(b, tok)];
        expect(eb.trajectories.every((t) => t.turns.every((u) => u.prompt === null))).toBe(true);
        expect(withoutPrompts(eb)).toEqual(withoutPrompts(ea));
        skillTokens += Array.from(a.tokens.aSkill ?? []).filter((x) => !Number.isNaN(x) && x !== 0).length;
        critical += a.trajectories.flatMap((t) => t.turns).filter((u) => u.critical).length;
      }
      // The comparison covered OPID's own numbers: non-zero A_skill on some tokens, and critical turns.
      expect(skillTokens).toBeGreaterThan(0);
      expect(critical).toBeGreaterThan(0);
    },
    600_000,
  );

  it(
    'GRPO: Stop after step 3 (checkpoint 2) offers Resume; Resume puts steps 1–2 back in the explorer ' +
      'and continues as an uninterrupted run',
    async () => {
      const cfg = parseRunConfig({ ...TINY, algo: 'grpo', steps: 4, checkpointEvery: 2 });
      const straight: TrainEvent[] = [];
      for await (const e of train(cfg, { backend: 'wasm', initWeights: base })) straight.push(e);

      const { store } = mapStore();
      const session = new TrainingSession(train, () => 'wasm', { checkpoints: true });
      const runs = new PageRuns(
        store,
        () => 1,
        (s) => session.trajectories.group(s, 0),
      );
      await session.configure(cfg, base);
      runs.begin({ kind: 'checkpoint', name: 'base' });
      const first: TrainEvent[] = [];
      const sink = runs.tap((e) => first.push(e));
      for (let k = 0; k < 3; k++) expect(await session.stepOnce(sink)).toBe('paused');
      await runs.flush();
      const liveGroups = [1, 2].map((s) => session.trajectories.group(s, 0)!);
      expect(await session.stop()).toBe(true);
      await runs.stop();
      const [stopped] = (await listRuns(store)).runs;
      expect(stopped).toMatchObject({
        done: true,
        stopped: true,
        stepsDone: 3,
        stepsPlanned: 4,
        lastCheckpoint: 2,
        checkpointEvery: 2,
      });
      expect(resumability(stopped, null)).toEqual({ resume: true, why: null });

      const api = runsApi({
        session,
        runs,
        runStore: store,
        onReconfigure: () => undefined,
        notPretraining: () => undefined,
        weights: {
          put: async () => undefined,
          get: async () => undefined,
          list: async () => [],
          delete: async () => undefined,
        },
        loadBase: async () => {
          throw new Error('not asked: the run started from a stored checkpoint');
        },
      });
      const r = await api.resumeRun(stopped.id);
      expect(r.fromStep).toBe(2);
      // The explorer holds the stored steps up to the checkpoint, with the numbers the live explorer had.
      expect(session.trajectories.index().steps.map((s) => s.step)).toEqual([1, 2]);
      for (const [i, step] of [1, 2].entries()) {
        const g = session.trajectories.group(step, 0)!;
        expect(g.stored?.notKept).toEqual([NOT_KEPT_PROMPTS]);
        expect(vectors(g)).toEqual(vectors(liveGroups[i]));
      }
      const resumed: TrainEvent[] = [];
      expect(await session.start(runs.tap((e) => resumed.push(e)))).toBe('done');
      await runs.flush();
      expect(steps(first)).toEqual(steps(straight).slice(0, 3));
      expect(steps(resumed).map((e) => e.step)).toEqual([3, 4]);
      expect(steps(resumed)).toEqual(steps(straight).slice(2));
      expect(session.trajectories.index().steps.map((s) => s.step)).toEqual([1, 2, 3, 4]);
      const [after] = (await listRuns(store)).runs;
      expect(after).toMatchObject({ id: stopped.id, done: true, stopped: false, stepsDone: 4, lastCheckpoint: 4 });
      expect(resumability(after, null)).toEqual({ resume: false, why: null });
    },
    600_000,
  );
});
