/**
 * Agentic-OPD's top-k variant (Agentic-OPD 2026, docs/references.md#agentic-opd; RunConfig.opdTopK = K > 0): instead of
 * the sampled-token advantage A_opd = sg(ℓ_teacher − ℓ_student), the update adds c_opd × the token mean, over
 * the action tokens of LAD-gated rollouts, of the reverse KL over the student's K most likely tokens, both
 * distributions renormalised over those K (math/agentic.ts `topKReverseKl`, its tensor form math/losses.ts
 * `topKReverseKlLoss`). This file makes the update's targets: per distilled token, the student's top-K ids under the
 * pre-update policy at the rollout temperature, and the frozen teacher's log-probs at them (model/topk.ts), K values
 * per position.
 *
 * Cost per step: one student pass and one teacher pass over the distilled samples (no gradient). The teacher pass
 * also reads the sampled token's log-prob (K + 1 ids per position), so the sampled reverse-KL estimate `reverseKl`
 * is still reported without a third pass.
 */
import type { PolicyHandle } from '../model/policy';
import { idsWithSampled, scoreTopK, type TopKTargets } from '../model/topk';
import { distillAdvantage, topKReverseKl } from '../math/agentic';
import type { ScoreSample } from '../model/scoring';
import type { PackedSamples } from './outcome';

/**
 * A teacher pool's `scoreAt` (agentic-opd.ts TeacherPool): teacher `id`'s log-probs at `k` given ids per response
 * token.
 */
export type ScoreAt = (
  id: number,
  samples: readonly ScoreSample[],
  temperature: number,
  ids: Int32Array,
  k: number,
) => Promise<Float32Array>;

/** The distilled samples of one teacher: its id and the packed sample indices it scores. */
export interface TeacherSamples {
  id: number;
  samples: number[];
}

/** What `topKDistill` returns. */
export interface TopKDistill {
  /** The update's targets (train/update.ts UpdateInputs.topK). */
  targets: TopKTargets;
  /** Token mean over distilled tokens of the top-K reverse KL under the pre-update student (nats); 0 with none. */
  topkReverseKl: number;
  /** Token mean over distilled tokens of ℓ_student − ℓ_teacher of the sampled token (nats); 0 with none. */
  reverseKl: number;
  /** Distilled action tokens. */
  gatedTokens: number;
  /** Forward passes run: tokens (prompt + response) and sequences, student and teacher together. */
  cost: { tokens: number; sequences: number };
}

/**
 * Build the top-k targets of a step (module comment).
 * @param scoreAt the pool's `scoreAt`; undefined when the pool has none.
 * @param groups the distilled samples per teacher (teachers scored one at a time, in this order).
 * @param gate [M]: 1 on the action tokens of distilled samples (math/agentic.ts `trajectoryTokenGate`).
 * @param oldLogp [M]: the student's pre-update log-probs of the sampled tokens (nats).
 * @throws Error when the pool cannot score at given ids (`scoreAt`), returns the wrong number of values, or a
 *   distilled log-prob is not finite.
 */
export async function topKDistill(
  policy: PolicyHandle,
  scoreAt: ScoreAt | undefined,
  packed: PackedSamples,
  groups: readonly TeacherSamples[],
  gate: Uint8Array,
  oldLogp: Float32Array,
  o: { k: number; temperature: number; coef: number },
): Promise<TopKDistill> {
  const K = o.k,
    M = packed.tokens;
  if (groups.length && !scoreAt)
    throw new Error(
      'agentic-opd: opdTopK > 0 needs a teacher pool that scores at given token ids ' +
        '(TeacherPool.scoreAt); set opdTopK to 0',
    );
  const ids = new Int32Array(M * K),
    teacherLogp = new Float32Array(M * K),
    studentLogp = new Float32Array(M * K),
    teacherSampled = new Float32Array(M);
  let tokens = 0,
    sequences = 0;
  for (const g of groups) {
    const samples = g.samples.map((s) => packed.samples[s]);
    const student = await scoreTopK(policy.params, policy.cfg, samples, policy.freeRow, {
      temperature: o.temperature,
      k: K,
    });
    // The teacher reads K + 1 ids per position: the student's top K and the sampled token.
    const Mg = samples.reduce((n, s) => n + s.response.length, 0);
    const plus = idsWithSampled(student.ids, samples, K);
    const t = await scoreAt!(g.id, samples, o.temperature, plus, K + 1);
    if (t.length !== Mg * (K + 1))
      throw new Error(
        `agentic-opd: teacher ${g.id} returned ${t.length} log-probs for ${Mg} action tokens × ${K + 1} ids`,
      );
    let m = 0;
    for (const s of g.samples) {
      const off = packed.offsets[s];
      for (let r = 0; r < packed.samples[s].response.length; r++, m++) {
        const at = (off + r) * K;
        ids.set(student.ids.subarray(m * K, (m + 1) * K), at);
        studentLogp.set(student.logp.subarray(m * K, (m + 1) * K), at);
        teacherLogp.set(t.subarray(m * (K + 1), m * (K + 1) + K), at);
        teacherSampled[off + r] = t[m * (K + 1) + K];
      }
    }
    tokens += student.tokens + samples.reduce((n, s) => n + s.prompt.length + s.response.length, 0);
    sequences += 2 * samples.length;
  }
  const d = distillAdvantage(teacherSampled, oldLogp, gate);
  let kl = 0;
  for (let m = 0; m < M; m++) {
    if (!gate[m]) continue;
    const v = topKReverseKl(
      Array.from(studentLogp.subarray(m * K, (m + 1) * K)),
      Array.from(teacherLogp.subarray(m * K, (m + 1) * K)),
    );
    if (!Number.isFinite(v)) throw new Error(`agentic-opd: the top-${K} reverse KL of action token ${m} is not finite`);
    kl += v;
  }
  return {
    targets: { k: K, ids, teacherLogp, gate, coef: o.coef },
    topkReverseKl: d.gatedTokens ? kl / d.gatedTokens : 0,
    reverseKl: d.reverseKl,
    gatedTokens: d.gatedTokens,
    cost: { tokens, sequences },
  };
}
