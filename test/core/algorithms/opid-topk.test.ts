/**
 * OPID's top-k skill distillation (skillTopK = K > 0, algorithms/opid-topk.ts) with a real nano policy on household
 * rollouts: the targets hold the student's own top-K ids on every skill-routed token and the skill prompt's log-probs
 * at them; the reported A_skill equals the sampled form's; the reported KL is the hand-computed token mean; no skill
 * routed → nothing gated; additive routing is refused; in the trainer λ_skill = 0 makes GRPO's update and λ > 0
 * does not.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { useBackend } from '../../helpers/backend';
import { train } from '../../../src/core/train/trainer';
import type { StepEvent, TrainEvent } from '../../../src/core/train/events';
import { runEpisodes } from '../../../src/core/rollout/runner';
import {
  buildTokenizer,
  createPolicy,
  disposePolicy,
  policyValues,
  type PolicyHandle,
} from '../../../src/core/model/policy';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { Rng } from '../../../src/core/rng';
import { packSamples } from '../../../src/core/algorithms/outcome';
import { skillRescore } from '../../../src/core/algorithms/opid';
import { skillJobs } from '../../../src/core/algorithms/skill-prompts';
import { skillTopKRescore } from '../../../src/core/algorithms/opid-topk';
import { scoreSamples } from '../../../src/core/model/scoring';
import { idsWithSampled, scoreTopK } from '../../../src/core/model/topk';
import { topKReverseKl } from '../../../src/core/math/agentic';
import type { TrajectorySkills } from '../../../src/core/analyzer/types';
import type { Trajectory } from '../../../src/core/rollout/types';
import { parseRunConfig, type RunConfig } from '../../../src/core/run/config';

const K = 4,
  H = 3;

async function setup(): Promise<{ p: PolicyHandle; trajs: Trajectory[] }> {
  const spec = getEnvSpec('household');
  const p = createPolicy('nano', buildTokenizer(spec), new Rng(3));
  const refs = [0, 1].map((index) => ({ split: 'train' as const, index }));
  const r = await runEpisodes(p, spec, 'easy', refs, {
    decoding: 'admissible',
    temperature: 1,
    historyTurns: H,
    maxActionTokens: 12,
    rng: new Rng(4),
  });
  return { p, trajs: r.trajectories };
}

const skills = (trajs: readonly Trajectory[]): TrajectorySkills[] =>
  trajs.map(() => ({
    episodeSkill: 'find the object, then put it in the target.',
    stepSkills: { 1: 'next, go to countertop 1.' },
  }));

describe('OPID top-k skill distillation', () => {
  beforeAll(() => useBackend('wasm'));

  it(
    'targets are the student top K and the skill prompt at them; A_skill and the KL match their ' + 'definitions',
    async () => {
      const { p, trajs } = await setup();
      const packed = packSamples(trajs);
      const old = (await scoreSamples(p.params, p.cfg, packed.samples, p.freeRow, { temperature: 1 })).logp;
      const sk = skills(trajs);
      const o = { ablation: 'none' as const, historyTurns: H, maxActionTokens: 12 };
      const routed = skillJobs(p, trajs, sk, o);
      expect(routed.jobs.length).toBe(packed.samples.length); // critical-first: one prompt per step
      const n0 = tf.memory().numTensors;
      const top = await skillTopKRescore(p, packed, routed, old, { k: K, temperature: 1, coef: 0.5 });
      expect(tf.memory().numTensors).toBe(n0);
      const sampled = await skillRescore(p, packed, routed, old, { temperature: 1 });
      expect(Array.from(top.active)).toEqual(Array.from(sampled.active));
      top.aSkill.forEach((v, m) => expect(v).toBeCloseTo(sampled.aSkill[m], 4));
      expect(top.targets.k).toBe(K);
      expect(top.targets.coef).toBe(0.5);
      expect(top.targets.gate).toBe(top.active);
      // Step-sample 1 of trajectory 0 holds the step skill: its ids and values, recomputed one sample at a time.
      const s = 1,
        job = routed.jobSample.indexOf(s),
        off = packed.offsets[s],
        L = packed.samples[s].response.length;
      expect(routed.critical[s]).toBe(true);
      const st = await scoreTopK(p.params, p.cfg, [packed.samples[s]], p.freeRow, { temperature: 1, k: K });
      expect(Array.from(top.targets.ids.subarray(off * K, (off + L) * K))).toEqual(Array.from(st.ids));
      const te = await scoreTopK(p.params, p.cfg, [routed.jobs[job]], p.freeRow, { temperature: 1, k: K, ids: st.ids });
      Array.from(te.logp).forEach((v, j) => expect(top.targets.teacherLogp[off * K + j]).toBeCloseTo(v, 4));
      // The reported KL: the token mean of topKReverseKl over every routed token.
      let kl = 0;
      for (let i = 0; i < routed.jobs.length; i++) {
        const sa = routed.jobSample[i];
        const a = await scoreTopK(p.params, p.cfg, [packed.samples[sa]], p.freeRow, { temperature: 1, k: K });
        const b = await scoreTopK(p.params, p.cfg, [routed.jobs[i]], p.freeRow, { temperature: 1, k: K, ids: a.ids });
        for (let r = 0; r < packed.samples[sa].response.length; r++)
          kl += topKReverseKl(
            Array.from(a.logp.subarray(r * K, (r + 1) * K)),
            Array.from(b.logp.subarray(r * K, (r + 1) * K)),
          );
      }
      expect(top.topkReverseKl).toBeGreaterThan(0);
      expect(top.topkReverseKl).toBeCloseTo(kl / packed.tokens, 4);
      // No skills routed: nothing gated, no pass.
      const none = await skillTopKRescore(
        p,
        packed,
        skillJobs(
          p,
          trajs,
          trajs.map(() => null),
          o,
        ),
        old,
        { k: K, temperature: 1, coef: 0.5 },
      );
      expect(none.active.every((x) => x === 0)).toBe(true);
      expect([none.topkReverseKl, none.tokens, none.prompts]).toEqual([0, 0, 0]);
      // Additive routing scores a critical step twice: refused.
      await expect(
        skillTopKRescore(p, packed, skillJobs(p, trajs, sk, { ...o, ablation: 'additive' }), old, {
          k: K,
          temperature: 1,
          coef: 0.5,
        }),
      ).rejects.toThrow(/additive routing/);
      disposePolicy(p);
    },
  );

  it('idsWithSampled: the student top K, then the sampled token, per position; a wrong length is refused', () => {
    const samples = [{ response: [7, 8] }, { response: [9] }];
    expect(Array.from(idsWithSampled(Int32Array.from([1, 2, 3, 4, 5, 6]), samples, 2))).toEqual([
      1, 2, 7, 3, 4, 8, 5, 6, 9,
    ]);
    expect(() => idsWithSampled(new Int32Array(5), samples, 2)).toThrow(/5 ids for 3 action tokens × K 2/);
  });

  it('the config refuses skillTopK with additive routing and K = 1 (its KL is always 0), naming the field', () => {
    expect(() => parseRunConfig({ algo: 'opid', ablation: 'additive', skillTopK: 16 })).toThrow(
      /skillTopK.*additive routing scores two/s,
    );
    expect(parseRunConfig({ algo: 'opid', ablation: 'no-episode', skillTopK: 16 }).skillTopK).toBe(16);
    expect(() => parseRunConfig({ algo: 'opid', skillTopK: 1 })).toThrow(
      /skillTopK.*top-1 reverse KL is always 0.*K ≥ 2/s,
    );
    expect(() => parseRunConfig({ algo: 'agentic-opd', opdTopK: 1 })).toThrow(/opdTopK.*top-1 reverse KL is always 0/s);
  });

  it('the config takes skillVariant paper by default, refuses a bad value and centred or per-action with top-k', () => {
    expect(parseRunConfig({ algo: 'opid' }).skillVariant).toBe('paper');
    expect(() => parseRunConfig({ algo: 'opid', skillVariant: 'centered' })).toThrow(
      'skillVariant: Invalid option: expected one of "paper"|"centred"|"per-action"|"where-ep-zero" ' +
        '(accepted: one of paper, centred, per-action, where-ep-zero)',
    );
    for (const v of ['centred', 'per-action'] as const)
      expect(() => parseRunConfig({ algo: 'opid', skillVariant: v, skillTopK: 16 })).toThrow(
        `skillVariant: skillVariant ${v} changes the sampled-token A_skill, which top-k skill distillation ` +
          '(skillTopK 16) does not use; set skillTopK to 0, or skillVariant to paper or where-ep-zero',
      );
    expect(parseRunConfig({ algo: 'opid', skillVariant: 'where-ep-zero', skillTopK: 16 }).skillVariant).toBe(
      'where-ep-zero',
    );
    expect(parseRunConfig({ algo: 'opid', skillVariant: 'centred' }).skillVariant).toBe('centred');
  });

  it(
    'in the trainer: λ_skill 0 updates as GRPO does, λ_skill 1 does not; A = A_ep (teacher share 0) ' +
      'and the KL is reported',
    async () => {
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
      const run = async (cfg: Partial<RunConfig>) => {
        const events: TrainEvent[] = [];
        let pol: PolicyHandle | undefined;
        let w = new Map<string, Float32Array>();
        for await (const e of train(cfg, { backend: 'wasm', onPolicy: (q) => (pol = q) })) {
          events.push(e);
          if (e.event === 'done') w = await policyValues(pol!);
        }
        return { step: events.find((e): e is StepEvent => e.event === 'step')!, w };
      };
      const g = await run({ ...tiny, algo: 'grpo' });
      const o0 = await run({ ...tiny, algo: 'opid', skillTopK: K, lambdaSkill: 0 });
      const o1 = await run({ ...tiny, algo: 'opid', skillTopK: K, lambdaSkill: 1 });
      for (const [k, v] of g.w) expect(Array.from(o0.w.get(k)!)).toEqual(Array.from(v));
      expect(Array.from(o1.w.get('wte')!)).not.toEqual(Array.from(g.w.get('wte')!));
      expect(o1.step.teacherShare).toBe(0);
      expect(o1.step.topkReverseKl).toBeGreaterThan(0);
      expect(o1.step.skillActiveTokenRatio).toBe(1);
      // Student top-k pass and teacher pass: two sequences per routed step.
      expect(o1.step.forwardSequences.skill).toBe(2 * o1.step.samples);
    },
  );
});
