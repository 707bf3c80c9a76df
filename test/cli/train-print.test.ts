/**
 * The CLI's readable progress line (cli/train-print.ts): OPID's part names the skill signal it used — the teacher
 * share of A for the sampled A_skill, the top-k reverse KL for `--skill-topk` (where A holds no skill term).
 */
import { describe, expect, it } from 'vitest';
import { ALGORITHM_CATALOG } from '../../src/core/algorithm-catalog';
import { progress } from '../../cli/train-print';
import type { StepEvent } from '../../src/core/train/events';

const base = {
  event: 'step',
  step: 5,
  successRate: 0.25,
  rewardMean: 0.25,
  policyLoss: 0.1,
  kl: 0.01,
  clipFraction: 0,
  entropy: 0.2,
  learningRate: 1e-4,
  stepKl: null,
  stepScale: 1,
  rolledBack: false,
  updates: 8,
  tokensPerSecond: 1000,
  stepMs: 2000,
  elapsedMs: 10000,
  analyzerCalls: 32,
  analyzerFailures: 0,
  analyzerFailureReasons: {},
  teacherShare: 0.012,
  skillActiveTokenRatio: 0.5,
  skillSignAgreement: 0.75,
} as unknown as StepEvent;

describe('train progress line', () => {
  it('sampled A_skill: teacher share; top-k: the reverse KL in nats instead', () => {
    const sampled = progress(base, 10, 0);
    expect(sampled).toContain('step 5/10  success 25%');
    expect(sampled).toContain(
      '| teacher share 1.2%  skill-active 50%  sign agreement 75%  analyzer 32 calls, 0 failed',
    );
    const top = progress({ ...base, teacherShare: 0, topkReverseKl: 0.10834 } as StepEvent, 10, 0);
    expect(top).toContain('| top-k KL 0.1083 nats  skill-active 50%');
    expect(top).not.toContain('teacher share');
  });

  it('sign agreement with no trajectory to judge (every group all-fail or all-success) reads –, not 0%', () => {
    const byType = (counted: number, agreement: number) => ({
      teacherShare: 0.01,
      skillActiveTokenRatio: 0.5,
      skillSignAgreement: agreement,
      trajectories: 4,
      tokens: 40,
      agreementCounted: counted,
    });
    const none = { ...base, skillSignAgreement: 0, skillByTaskType: { pick: byType(0, 0), cool: byType(0, 0) } };
    const line = progress(none as StepEvent, 10, 0);
    expect(line).toContain('skill-active 50%  sign agreement –  analyzer');
    expect(line).toContain('| by type (teacher share, sign agreement): pick 1.0% –, cool 1.0% –');
    const some = { ...base, skillByTaskType: { pick: byType(0, 0), cool: byType(4, 0.75) } };
    const line2 = progress(some as StepEvent, 10, 0);
    expect(line2).toContain('sign agreement 75%  analyzer');
    expect(line2).toContain('pick 1.0% –, cool 1.0% 75%');
  });

  it("Skill-GRPO (no teacher-share chart): only the analyzer's calls, no skill numbers", () => {
    const line = progress(base, 10, 0, ALGORITHM_CATALOG['skill-grpo'].charts);
    expect(line).toContain('| analyzer 32 calls, 0 failed');
    expect(line).not.toContain('teacher share');
    expect(line).not.toContain('skill-active');
    expect(progress(base, 10, 0, ALGORITHM_CATALOG.opid.charts)).toContain('| teacher share 1.2%');
  });
});
