/**
 * OPID's re-scoring path (OPID, Yang et al. 2026, §3: A_skill = ℓ_skill − ℓ_old per action token) checked
 * against an independent computation, with the shipped household/easy base policy on a hand-made household trajectory
 * (train task 0: a detour, then the expert's actions, so prompts and admissible lists are the env's own). ℓ_skill as
 * OPID computes it (algorithms/skill-prompts.ts `skillJobs` + model/scoring.ts `scoreSamples`, and the algorithm's
 * `advantages()` with its per-token views) equals, to 1e-5 nats, a direct computation here: the skill prompt built with
 * rollout/prompt.ts `buildPrompt`, one forward pass over prompt + ␣action <eos>, the admissible-decoding mask of each
 * action token (rollout/trie.ts, as the runner builds it), logits / T, a float64 log-softmax over the allowed set, the
 * sampled token's entry; at T = 1 and 0.7, on the step holding the step skill and on the steps with only the episode
 * skill. No skill routed → A_skill = 0 exactly. The direct computation reproduces the sampler's own log-probs on a
 * runner rollout (so its mask is the runner's), and a re-score read one position late or without the mask is far from
 * OPID's values (so these tests can tell them apart). No tensor is left behind. The A_skill variants beyond the paper
 * (RunConfig.skillVariant) are checked on the same trajectory: `centred`'s KL(π ‖ π_skill) against a float64
 * softmax of both passes over each token's allowed set, `per-action` and `where-ep-zero` against the paper's A_skill.
 *
 * Measured on wasm: OPID vs direct ≤ 5.4e-7 nats over 29 tokens (sampler vs direct 4.3e-8); the skills move ℓ by up
 * to 7.3 (T = 1) and 10.7 (T = 0.7) nats; a re-score one position late is off by up to 7.5 / 10.8 nats, an unmasked one
 * by up to 11.8 / 15.2 nats (the base is fitted to the masked distribution only, pretrain/demos.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { useBackend } from '../../helpers/backend';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { buildTokenizer, disposePolicy, loadPolicy, type PolicyHandle } from '../../../src/core/model/policy';
import { forward, logits } from '../../../src/core/model/transformer';
import { scoreSamples } from '../../../src/core/model/scoring';
import { actionTokens, buildPrompt, type Turn } from '../../../src/core/rollout/prompt';
import { ActionTrie } from '../../../src/core/rollout/trie';
import { runEpisodes } from '../../../src/core/rollout/runner';
import type { StepRecord, Trajectory } from '../../../src/core/rollout/types';
import { packSamples } from '../../../src/core/algorithms/outcome';
import { opid, skillRescore, skillRescoreFull } from '../../../src/core/algorithms/opid';
import { skillJobs } from '../../../src/core/algorithms/skill-prompts';
import type { StepContext } from '../../../src/core/algorithms/types';
import type { Analyzer, AnalyzerStats, TrajectorySkills } from '../../../src/core/analyzer/types';
import { episodeSkill, stepSkill } from '../../../src/core/skills/grammar';
import { parseRunConfig, type RunConfig } from '../../../src/core/run/config';
import { Rng } from '../../../src/core/rng';
import { loadBaseFiles } from '../../../cli/base';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);
const H = 3,
  MAX = 12,
  /** Steps of the hand-made trajectory (fewer if the expert finishes sooner) and the one holding the step skill. */
  STEPS = 6,
  CRIT = 2;
const TEMPS = [1, 0.7];
let policy: PolicyHandle;
/** The hand-made trajectory and, per step, the history turns it was played with (kept independently of the code). */
let traj: Trajectory;
let turnsBefore: Turn[][];
let skills: TrajectorySkills;

/**
 * Train task 0 of household/easy played for up to STEPS steps (a detour, then the expert's actions), recorded as the
 * runner records a step.
 */
function handTrajectory(): { t: Trajectory; turns: Turn[][] } {
  const env = spec.create('easy');
  const ref = { split: 'train' as const, index: 0 };
  const r = env.reset(ref);
  const expert = spec.expert(env);
  const eos = tok.special('<eos>');
  const steps: StepRecord[] = [],
    turns: Turn[][] = [],
    hist: Turn[] = [];
  let obs = r.observation,
    reward = 0,
    success = false;
  for (let k = 0; k < STEPS; k++) {
    const admissible = env.admissibleActions();
    const wanted = expert.act();
    // Step 0 is a detour (the first admissible action other than the expert's), so log-probs are not all near 0.
    const action = k === 0 ? admissible.find((a) => a !== wanted)! : wanted;
    expect(admissible).toContain(action);
    const trie = new ActionTrie(
      admissible.map((a) => actionTokens(tok, a)),
      eos,
    );
    const response = [...actionTokens(tok, action), eos];
    const allowed = response.map((_, i) => trie.allowed(response.slice(0, i)));
    const prompt = buildPrompt(
      tok,
      { task: r.task, history: hist, observation: obs, admissible, historyTurns: H },
      policy.cfg.maxSeq - MAX,
    );
    turns.push([...hist]);
    const st = env.step(action);
    expect(st.valid).toBe(true);
    steps.push({
      observation: obs,
      admissible,
      prompt,
      response,
      allowed,
      sampleLogp: [],
      sampleEntropy: [],
      action,
      valid: st.valid,
      reward: st.reward,
    });
    reward += st.reward;
    success ||= st.success;
    hist.push({ action, observation: st.observation });
    obs = st.observation;
    if (st.done) break;
  }
  const t: Trajectory = {
    ref,
    task: r.task,
    taskType: r.taskType,
    initialObservation: r.observation,
    steps,
    reward,
    success,
    invalidCount: 0,
    finalObservation: obs,
  };
  return { t, turns };
}

/** How the direct computation reads the log-probs: as the sampler's distribution, or one of two wrong ways. */
type Mode = 'exact' | 'shifted' | 'unmasked';

/**
 * Per response token, log softmax(logits / T over the allowed set)[sampled token] in float64 from one forward pass over
 * prompt + response (positions 0…L−1, no padding). `shifted`: the logits of the token's own position (one late);
 * `unmasked`: over the whole vocabulary.
 */
function directLogp(
  prompt: readonly number[],
  response: readonly number[],
  allowed: readonly (Int32Array | null)[],
  T: number,
  mode: Mode = 'exact',
): number[] {
  const ids = [...prompt, ...response];
  const L = ids.length,
    V = policy.cfg.vocabSize;
  const lg = tf.tidy(() => {
    const { hidden } = forward(
      policy.params,
      policy.cfg,
      tf.tensor2d(ids, [1, L], 'int32'),
      tf.tensor2d([...Array(L).keys()], [1, L], 'int32'),
    );
    return logits(policy.params, tf.reshape(hidden, [L, -1]) as tf.Tensor2D);
  });
  const all = lg.dataSync() as Float32Array;
  lg.dispose();
  const every = [...Array(V).keys()];
  const free = every.filter((v) => policy.freeRow[v] === 0);
  return response.map((target, t) => {
    const at = prompt.length - 1 + t + (mode === 'shifted' ? 1 : 0);
    const row = all.subarray(at * V, (at + 1) * V);
    const set = mode === 'unmasked' ? every : allowed[t] ? Array.from(allowed[t]!) : free;
    const xs = set.map((v) => row[v] / T);
    const m = Math.max(...xs);
    const lse = m + Math.log(xs.reduce((z, x) => z + Math.exp(x - m), 0));
    return row[target] / T - lse;
  });
}

/** The skills OPID's routing gives step `k` of the hand-made trajectory (critical-first, every step gets one). */
const routedSkill = (k: number) =>
  k === CRIT ? { stepSkill: skills.stepSkills[CRIT] } : { episodeSkill: skills.episodeSkill };

/** Step k's skill prompt built here from the trajectory's own parts (not skill-prompts.ts `rebuildPrompt`). */
function skillPrompt(k: number, sk: { episodeSkill?: string; stepSkill?: string }): number[] {
  const s = traj.steps[k];
  return buildPrompt(
    tok,
    {
      task: traj.task,
      history: turnsBefore[k],
      observation: s.observation,
      admissible: s.admissible,
      historyTurns: H,
      ...sk,
    },
    policy.cfg.maxSeq - MAX,
  );
}

/** Direct per-token log-probs of every step, each under prompt `promptOf(k)`, flattened sample-major [M]. */
function directAll(T: number, promptOf: (k: number) => number[], mode: Mode = 'exact'): number[] {
  return traj.steps.flatMap((s, k) => directLogp(promptOf(k), s.response, s.allowed, T, mode));
}

/** An analyzer that returns `sk` for every trajectory. */
function fixedAnalyzer(sk: TrajectorySkills): Analyzer {
  const s: AnalyzerStats = { calls: 0, failures: 0, latencyMs: 0, failureReasons: {} };
  return {
    name: 'fixed',
    async analyze(g) {
      s.calls += g.trajectories.length;
      return g.trajectories.map(() => sk);
    },
    stats: () => s,
  };
}

/**
 * OPID's `advantages()` on the hand-made trajectory at temperature T, with ℓ_old = `oldLogp`, A_ep = `aEp` (0.5
 * unless given) and the settings `extra` beside these.
 */
async function opidStep(
  T: number,
  sk: TrajectorySkills,
  oldLogp: Float32Array,
  extra: Partial<RunConfig> = {},
  aEp = 0.5,
) {
  const cfg = parseRunConfig({
    algo: 'opid',
    temperature: T,
    historyTurns: H,
    maxActionTokens: MAX,
    skillClip: 0,
    ...extra,
  });
  const run = opid.create({ cfg, env: 'household', analyzer: fixedAnalyzer(sk) });
  const packed = packSamples([traj]);
  const ctx: StepContext = {
    policy,
    trajs: [traj],
    groupOf: [0],
    packed,
    aEpTraj: [aEp],
    aEpTok: new Float32Array(packed.tokens).fill(aEp),
    oldLogp,
  };
  return { step: await run.advantages(ctx), lambda: cfg.lambdaSkill };
}

/**
 * Per response token, KL(π ‖ π_skill) in float64 over its allowed set: π and π_skill = softmax(logits / T) of one
 * forward pass over `prompt` + response and `skillPrompt` + response (as `directLogp`, mode exact).
 */
function directKl(
  prompt: readonly number[],
  skillPrompt: readonly number[],
  response: readonly number[],
  allowed: readonly (Int32Array | null)[],
  T: number,
): number[] {
  const V = policy.cfg.vocabSize;
  const rowsOf = (pr: readonly number[]) => {
    const ids = [...pr, ...response];
    const L = ids.length;
    const lg = tf.tidy(() => {
      const { hidden } = forward(
        policy.params,
        policy.cfg,
        tf.tensor2d(ids, [1, L], 'int32'),
        tf.tensor2d([...Array(L).keys()], [1, L], 'int32'),
      );
      return logits(policy.params, tf.reshape(hidden, [L, -1]) as tf.Tensor2D);
    });
    const all = lg.dataSync() as Float32Array;
    lg.dispose();
    return (t: number, set: number[]) => {
      const at = pr.length - 1 + t;
      const xs = set.map((v) => all[at * V + v] / T);
      const m = Math.max(...xs);
      const lse = m + Math.log(xs.reduce((z, x) => z + Math.exp(x - m), 0));
      return xs.map((x) => x - lse);
    };
  };
  const student = rowsOf(prompt),
    teacher = rowsOf(skillPrompt);
  const free = [...Array(V).keys()].filter((v) => policy.freeRow[v] === 0);
  return response.map((_, t) => {
    const set = allowed[t] ? Array.from(allowed[t]!) : free;
    const ls = student(t, set),
      lt = teacher(t, set);
    return ls.reduce((kl, l, i) => kl + Math.exp(l) * (l - lt[i]), 0);
  });
}

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  expect(a.length).toBe(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};

beforeAll(async () => {
  await useBackend('wasm');
  policy = loadPolicy((await loadBaseFiles(spec, 'easy', tok)).bytes, tok);
  const h = handTrajectory();
  traj = h.t;
  turnsBefore = h.turns;
  expect(traj.steps.length).toBeGreaterThan(CRIT + 1);
  skills = {
    episodeSkill: episodeSkill(traj.steps.slice(1).map((s) => s.action)), // the workflow without the detour
    stepSkills: { [CRIT]: stepSkill(traj.steps[CRIT].action) },
  };
});

afterAll(() => disposePolicy(policy));

describe('OPID re-scoring against a direct computation', () => {
  it('the direct computation reproduces the sampler: its log-probs and masks on a runner rollout', async () => {
    const r = await runEpisodes(policy, spec, 'easy', [{ split: 'train', index: 0 }], {
      decoding: 'admissible',
      temperature: 0.7,
      historyTurns: H,
      maxActionTokens: MAX,
      rng: new Rng(11),
    });
    const eos = tok.special('<eos>');
    let worst = 0;
    const n0 = tf.memory().numTensors;
    for (const s of r.trajectories[0].steps.slice(0, 4)) {
      const trie = new ActionTrie(
        s.admissible.map((a) => actionTokens(tok, a)),
        eos,
      );
      s.allowed.forEach((a, i) => expect(Array.from(a!)).toEqual(Array.from(trie.allowed(s.response.slice(0, i)))));
      worst = Math.max(worst, maxAbsDiff(directLogp(s.prompt, s.response, s.allowed, 0.7), s.sampleLogp));
    }
    expect(tf.memory().numTensors).toBe(n0);
    expect(worst).toBeLessThan(1e-5);
  });

  for (const T of TEMPS)
    it(`T = ${T}: ℓ_skill token by token equals the direct computation, step skill and episode skill`, async () => {
      const n0 = tf.memory().numTensors;
      const oldDirect = directAll(T, (k) => traj.steps[k].prompt);
      const skillDirect = directAll(T, (k) => skillPrompt(k, routedSkill(k)));
      const packed = packSamples([traj]);
      // The routed jobs: one per step, in step order, each with the skill prompt built here and the sampled action.
      const routed = skillJobs(policy, [traj], [skills], { ablation: 'none', historyTurns: H, maxActionTokens: MAX });
      expect(routed.jobSample).toEqual(traj.steps.map((_, k) => k));
      expect(routed.critical).toEqual(traj.steps.map((_, k) => k === CRIT));
      routed.jobs.forEach((j, k) => {
        expect(j.prompt).toEqual(skillPrompt(k, routedSkill(k)));
        expect(j.response).toEqual(traj.steps[k].response);
      });
      // ℓ_skill as skillRescore scores it.
      const scored = await scoreSamples(policy.params, policy.cfg, routed.jobs, policy.freeRow, { temperature: T });
      // A_skill and ℓ_skill through the algorithm (advantages() and its per-token views).
      const oldLogp = Float32Array.from(oldDirect);
      const { step, lambda } = await opidStep(T, skills, oldLogp);
      const M = packed.tokens;
      const viewSkill = Array.from({ length: M }, (_, m) => step.views!.token(m)!.logpSkill!);
      const viewAdv = Array.from({ length: M }, (_, m) => step.views!.token(m)!.advSkill!);
      const dAdv = maxAbsDiff(
        viewAdv,
        skillDirect.map((l, m) => l - oldLogp[m]),
      );
      expect(tf.memory().numTensors).toBe(n0);
      // Per step: the step-skill step and the episode-skill steps, each token.
      traj.steps.forEach((s, k) => {
        const o = packed.offsets[k];
        for (let i = 0; i < s.response.length; i++) {
          const what = `T ${T}, step ${k} (${k === CRIT ? 'step skill' : 'episode skill'}), token ${i}`;
          expect(Math.abs(scored.logp[o + i] - skillDirect[o + i]), what).toBeLessThan(1e-5);
          expect(Math.abs(viewSkill[o + i] - skillDirect[o + i]), what).toBeLessThan(1e-5);
        }
      });
      expect(dAdv).toBeLessThan(1e-5);
      // Each kind of skill prompt changes some token's log-prob (else the comparison says little about that prompt).
      const gain = (k: number) => {
        const o = packed.offsets[k];
        return maxAbsDiff(
          skillDirect.slice(o, o + traj.steps[k].response.length),
          oldDirect.slice(o, o + traj.steps[k].response.length),
        );
      };
      const episodeGain = Math.max(...traj.steps.map((_, k) => (k === CRIT ? 0 : gain(k))));
      expect(gain(CRIT), 'step-skill step').toBeGreaterThan(1e-2);
      expect(episodeGain, 'episode-skill steps').toBeGreaterThan(1e-2);
      // A = A_ep + λ_skill·A_skill (no z-score, no clip) with A_ep = 0.5.
      for (let m = 0; m < M; m++) expect(step.adv[m]).toBeCloseTo(0.5 + lambda * viewAdv[m], 6);
    });

  it('an empty skill (no episode skill, no step skill routed) gives A_skill = 0 exactly at every token', async () => {
    const n0 = tf.memory().numTensors;
    const T = 0.7;
    const oldLogp = Float32Array.from(directAll(T, (k) => traj.steps[k].prompt));
    for (const empty of [
      { episodeSkill: '', stepSkills: {} },
      { episodeSkill: '', stepSkills: { [traj.steps.length + 3]: stepSkill('look') } }, // out of range: ignored
    ]) {
      const routed = skillJobs(policy, [traj], [empty], { ablation: 'none', historyTurns: H, maxActionTokens: MAX });
      expect(routed.jobs).toHaveLength(0);
      const packed = packSamples([traj]);
      const r = await skillRescore(policy, packed, routed, oldLogp, { temperature: T });
      expect(r.prompts).toBe(0);
      expect(r.tokens).toBe(0);
      r.aSkill.forEach((a, m) => {
        expect(a, `token ${m}`).toBe(0);
        expect(r.active[m]).toBe(0);
      });
      const { step } = await opidStep(T, empty, oldLogp);
      expect(step.cost).toEqual({ tokens: 0, sequences: 0 });
      expect(step.metrics.skillActiveTokenRatio).toBe(0);
      for (let m = 0; m < packed.tokens; m++) {
        const v = step.views!.token(m)!;
        expect(v.advSkill, `token ${m}`).toBe(0);
        expect(v.logpSkill).toBe(oldLogp[m]);
        expect(step.adv[m]).toBe(0.5);
      }
    }
    expect(tf.memory().numTensors).toBe(n0);
  });

  it('the check can fail: a re-score one position late, or without the mask, is > 1e-2 nats from OPID', async () => {
    const n0 = tf.memory().numTensors;
    for (const T of TEMPS) {
      const routed = skillJobs(policy, [traj], [skills], { ablation: 'none', historyTurns: H, maxActionTokens: MAX });
      const opidLogp = (await scoreSamples(policy.params, policy.cfg, routed.jobs, policy.freeRow, { temperature: T }))
        .logp;
      const promptOf = (k: number) => skillPrompt(k, routedSkill(k));
      const exact = maxAbsDiff(opidLogp, directAll(T, promptOf));
      const shifted = maxAbsDiff(opidLogp, directAll(T, promptOf, 'shifted'));
      const unmasked = maxAbsDiff(opidLogp, directAll(T, promptOf, 'unmasked'));
      expect(exact, 'exact re-score').toBeLessThan(1e-5);
      expect(shifted, 'shifted re-score differs from OPID').toBeGreaterThan(1e-2);
      expect(unmasked, 'unmasked re-score differs from OPID').toBeGreaterThan(1e-2);
    }
    expect(tf.memory().numTensors).toBe(n0);
  });
});

describe('OPID A_skill variants (beyond the paper) on the hand-made trajectory', () => {
  const T = 0.7;
  const advSkillOf = (step: { views?: { token: (m: number) => { advSkill?: number } | undefined } }, M: number) =>
    Array.from({ length: M }, (_, m) => step.views!.token(m)!.advSkill!);

  it('skillRescoreFull: ℓ_skill as skillRescore; KL(π ‖ π_skill) over V as computed here', async () => {
    const n0 = tf.memory().numTensors;
    const oldLogp = Float32Array.from(directAll(T, (k) => traj.steps[k].prompt));
    const packed = packSamples([traj]);
    const routed = skillJobs(policy, [traj], [skills], { ablation: 'none', historyTurns: H, maxActionTokens: MAX });
    const sampled = await skillRescore(policy, packed, routed, oldLogp, { temperature: T });
    const full = await skillRescoreFull(policy, packed, routed, oldLogp, { temperature: T });
    expect(tf.memory().numTensors).toBe(n0);
    expect(maxAbsDiff(full.aSkill, sampled.aSkill)).toBeLessThan(1e-5);
    expect(Array.from(full.active)).toEqual(Array.from(sampled.active));
    const klDirect = traj.steps.flatMap((s, k) =>
      directKl(s.prompt, skillPrompt(k, routedSkill(k)), s.response, s.allowed, T),
    );
    expect(maxAbsDiff(full.kl, klDirect)).toBeLessThan(1e-5);
    expect(Math.max(...klDirect)).toBeGreaterThan(1e-2);
    // Student and skill passes: two sequences per routed step.
    expect(full.prompts).toBe(2 * traj.steps.length);
    expect(full.tokens).toBeGreaterThan(sampled.tokens);
    // No skills routed: no pass, all zero.
    const none = skillJobs(policy, [traj], [null], { ablation: 'none', historyTurns: H, maxActionTokens: MAX });
    const z = await skillRescoreFull(policy, packed, none, oldLogp, { temperature: T });
    expect([z.tokens, z.prompts, Math.max(...z.kl), Math.max(...z.active)]).toEqual([0, 0, 0, 0]);
  });

  it('advantages(): paper by name is the default bit for bit; centred = Δℓ + KL, same ℓ_skill view', async () => {
    const oldLogp = Float32Array.from(directAll(T, (k) => traj.steps[k].prompt));
    const M = packSamples([traj]).tokens;
    const base = (await opidStep(T, skills, oldLogp)).step;
    const paper = (await opidStep(T, skills, oldLogp, { skillVariant: 'paper' })).step;
    expect(Array.from(paper.adv)).toEqual(Array.from(base.adv));
    expect(paper.cost).toEqual(base.cost);
    const { step, lambda } = await opidStep(T, skills, oldLogp, { skillVariant: 'centred' });
    const klDirect = traj.steps.flatMap((s, k) =>
      directKl(s.prompt, skillPrompt(k, routedSkill(k)), s.response, s.allowed, T),
    );
    const want = advSkillOf(base, M).map((a, m) => a + klDirect[m]);
    expect(maxAbsDiff(advSkillOf(step, M), want)).toBeLessThan(1e-5);
    for (let m = 0; m < M; m++) {
      expect(step.adv[m]).toBeCloseTo(0.5 + lambda * step.views!.token(m)!.advSkill!, 6);
      expect(step.views!.token(m)!.logpSkill).toBeCloseTo(base.views!.token(m)!.logpSkill!, 5);
    }
    expect(step.cost.sequences).toBe(2 * base.cost.sequences);
    // The sign agreement is judged on ℓ_skill − ℓ_old, not on the centred value.
    expect(step.metrics.skillSignAgreement).toBe(base.metrics.skillSignAgreement);
  });

  it('advantages(): per-action: its action’s mean Δℓ; where-ep-zero: Δℓ only at A_ep = 0', async () => {
    const oldLogp = Float32Array.from(directAll(T, (k) => traj.steps[k].prompt));
    const packed = packSamples([traj]);
    const M = packed.tokens;
    const paper = advSkillOf((await opidStep(T, skills, oldLogp)).step, M);
    const per = (await opidStep(T, skills, oldLogp, { skillVariant: 'per-action' })).step;
    traj.steps.forEach((s, k) => {
      const o = packed.offsets[k],
        L = s.response.length;
      const mean = paper.slice(o, o + L).reduce((a, b) => a + b, 0) / L;
      for (let i = o; i < o + L; i++) expect(per.views!.token(i)!.advSkill).toBeCloseTo(mean, 6);
    });
    // A_ep 0.5 everywhere: no teacher term at all, A = A_ep exactly.
    const ep = (await opidStep(T, skills, oldLogp, { skillVariant: 'where-ep-zero' })).step;
    expect(Array.from(ep.adv)).toEqual(new Array(M).fill(0.5));
    expect(ep.metrics.teacherShare).toBe(0);
    expect(ep.metrics.skillActiveTokenRatio).toBe(1);
    // A_ep 0 everywhere (a silent group): the paper's A bit for bit.
    const silentPaper = (await opidStep(T, skills, oldLogp, {}, 0)).step;
    const silentEp = (await opidStep(T, skills, oldLogp, { skillVariant: 'where-ep-zero' }, 0)).step;
    expect(Array.from(silentEp.adv)).toEqual(Array.from(silentPaper.adv));
    expect(silentPaper.adv.some((a) => a !== 0)).toBe(true);
  });

  it('top-k form with where-ep-zero: the KL term is gated to A_ep = 0 tokens', async () => {
    const oldLogp = Float32Array.from(directAll(T, (k) => traj.steps[k].prompt));
    const M = packSamples([traj]).tokens;
    const x = { skillTopK: 4, skillVariant: 'where-ep-zero' as const };
    const loud = (await opidStep(T, skills, oldLogp, x)).step;
    expect(Array.from(loud.topK!.gate)).toEqual(new Array(M).fill(0));
    const silent = (await opidStep(T, skills, oldLogp, x, 0)).step;
    expect(Array.from(silent.topK!.gate)).toEqual(new Array(M).fill(1));
    const plain = (await opidStep(T, skills, oldLogp, { skillTopK: 4 })).step;
    expect(Array.from(plain.topK!.gate)).toEqual(new Array(M).fill(1));
    expect(Array.from(loud.adv)).toEqual(Array.from(plain.adv));
  });
});
