/**
 * OPID's skill signal in top-k form (RunConfig.skillTopK = K > 0; not in the OPID paper): instead of the sampled-token
 * advantage A_skill = ℓ_skill − ℓ_old, the update adds λ_skill × the token mean, over skill-routed action
 * tokens, of the reverse KL from the student to the skill-conditioned teacher over the student's K most likely tokens,
 * both renormalised over those K — the top-k on-policy distillation of Agentic-OPD (2026;
 * docs/references.md#agentic-opd) (Agentic-OPD's opdTopK, ./agentic-topk.ts) with OPID's teacher, the pre-update policy
 * reading its hindsight skill (OPID, Yang et al. 2026, §3; docs/references.md#opid). The sampled form pushes the
 * sampled token down wherever the skill prefers another one, and the freed mass goes to every other token; the top-k
 * form moves it to the tokens the skill prefers (docs/experiments/, the OPID table's page).
 *
 * Cost per step: one student top-k pass over the routed steps' rollout prompts and one teacher pass over their skill
 * prompts (the sampled form needs the teacher pass only). The teacher pass reads the sampled token too (K + 1 ids per
 * position), so A_skill = ℓ_skill − ℓ_old is still reported (sign agreement, the explorer) without a third pass.
 */
import type { PolicyHandle } from '../model/policy';
import { idsWithSampled, scoreTopK, type TopKTargets } from '../model/topk';
import { topKReverseKl } from '../math/agentic';
import { skillAdvantage } from '../math/skill';
import type { PackedSamples } from './outcome';
import type { SkillJobs } from './skill-prompts';

/** What `skillTopKRescore` returns: packed per-token vectors [M] and the update's targets. */
export interface SkillTopK {
  /** The update's top-k reverse-KL targets (train/update.ts UpdateInputs.topK), gate = `active`, coef = λ_skill. */
  targets: TopKTargets;
  /** ℓ_skill − ℓ_old of the sampled token, nats (0 where no skill): reported, not in A. */
  aSkill: Float32Array;
  /** 1 where a skill was routed to the token. */
  active: Uint8Array;
  /** Token mean over routed tokens of the top-K reverse KL under the pre-update student (nats); 0 with none. */
  topkReverseKl: number;
  /** Tokens through the model (prompt + response, student and teacher passes). */
  tokens: number;
  /** Sequences scored (student and teacher passes). */
  prompts: number;
}

/**
 * Build the top-k targets of an OPID step (module comment).
 * @param routed the step's skill prompts (./skill-prompts.ts `skillJobs`); at most one per step-sample.
 * @param oldLogp [M]: the student's pre-update log-probs of the sampled tokens (nats).
 * @param o.k K ≥ 1 ids per position; o.coef λ_skill; o.temperature the rollout temperature.
 * @throws Error when a step-sample has two skill prompts (additive routing: set skillTopK to 0 or another ablation),
 *   or a top-k reverse KL is not finite; from model/topk.ts `scoreTopK` (K out of range, a sample too long).
 */
export async function skillTopKRescore(
  policy: PolicyHandle,
  packed: PackedSamples,
  routed: SkillJobs,
  oldLogp: Float32Array,
  o: { k: number; temperature: number; coef: number },
): Promise<SkillTopK> {
  const K = o.k,
    M = packed.tokens;
  const seen = new Set<number>();
  for (const s of routed.jobSample) {
    if (seen.has(s))
      throw new Error(
        'opid: skillTopK > 0 scores one skill prompt per step, and additive routing gives a critical step ' +
          'two; set skillTopK to 0 or choose another ablation',
      );
    seen.add(s);
  }
  const ids = new Int32Array(M * K),
    teacherLogp = new Float32Array(M * K),
    aSkill = new Float32Array(M),
    active = new Uint8Array(M);
  if (!routed.jobs.length)
    return {
      targets: { k: K, ids, teacherLogp, gate: active, coef: o.coef },
      aSkill,
      active,
      topkReverseKl: 0,
      tokens: 0,
      prompts: 0,
    };
  const studentSamples = routed.jobSample.map((s) => packed.samples[s]);
  const student = await scoreTopK(policy.params, policy.cfg, studentSamples, policy.freeRow, {
    temperature: o.temperature,
    k: K,
  });
  const plus = idsWithSampled(student.ids, studentSamples, K);
  const teacher = await scoreTopK(policy.params, policy.cfg, routed.jobs, policy.freeRow, {
    temperature: o.temperature,
    k: K + 1,
    ids: plus,
  });
  let kl = 0,
    n = 0,
    m = 0;
  routed.jobSample.forEach((s) => {
    const off = packed.offsets[s];
    for (let r = 0; r < packed.samples[s].response.length; r++, m++) {
      const at = off + r;
      ids.set(student.ids.subarray(m * K, (m + 1) * K), at * K);
      teacherLogp.set(teacher.logp.subarray(m * (K + 1), m * (K + 1) + K), at * K);
      aSkill[at] = skillAdvantage(teacher.logp[m * (K + 1) + K], oldLogp[at]);
      active[at] = 1;
      const v = topKReverseKl(
        Array.from(student.logp.subarray(m * K, (m + 1) * K)),
        Array.from(teacherLogp.subarray(at * K, (at + 1) * K)),
      );
      if (!Number.isFinite(v)) throw new Error(`opid: the top-${K} reverse KL of action token ${at} is not finite`);
      kl += v;
      n++;
    }
  });
  const tokens = student.tokens + teacher.tokens;
  return {
    targets: { k: K, ids, teacherLogp, gate: active, coef: o.coef },
    aSkill,
    active,
    topkReverseKl: n ? kl / n : 0,
    tokens,
    prompts: 2 * routed.jobs.length,
  };
}
