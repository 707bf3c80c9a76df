import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { useBackend } from '../../helpers/backend';
import { skillSensitivity } from '../../../src/core/pretrain/measure';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { buildTokenizer, createPolicy, disposePolicy } from '../../../src/core/model/policy';
import { expertPlanFor } from '../../../src/core/envs/expert-hints';
import { Rng } from '../../../src/core/rng';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);

describe('skill sensitivity per task type', () => {
  beforeAll(() => useBackend('wasm'));

  it("splits the scored steps by the episode's task type; the per-type means make up the overall means", async () => {
    const p = createPolicy('nano', tok, new Rng(1).fork('init'));
    const before = tf.memory().numTensors;
    const o = { preset: 'default', split: 'test-seen' as const, episodes: 4, historyTurns: 3, maxActionTokens: 12 };
    const k = await skillSensitivity(p, spec, o);
    // On the expert's path every step of the expert's plan is scored once, grouped by the task's type.
    const want: Record<string, number> = {};
    for (let index = 0; index < 4; index++) {
      const env = spec.create('default');
      const type = env.reset({ split: 'test-seen', index }).taskType;
      want[type] = (want[type] ?? 0) + expertPlanFor(spec, 'default', { split: 'test-seen', index }).length;
    }
    expect(Object.fromEntries(Object.entries(k.byTaskType).map(([t, x]) => [t, x.steps]))).toEqual(want);
    expect(k.steps).toBe(Object.values(want).reduce((a, b) => a + b, 0));
    const types = Object.values(k.byTaskType);
    const weighted = (f: (x: (typeof types)[number]) => number) =>
      types.reduce((s, x) => s + x.steps * f(x), 0) / k.steps;
    expect(weighted((x) => x.logpNoSkill)).toBeCloseTo(k.logpNoSkill, 5);
    expect(weighted((x) => x.logpWithSkill)).toBeCloseTo(k.logpWithSkill, 5);
    for (const x of [k, ...types]) {
      expect(x.gainNats).toBe(x.logpWithSkill - x.logpNoSkill);
      expect(x.logpNoSkill).toBeLessThan(0);
    }
    // Off the path (a demonstrator with 50% random moves) more steps are scored, the same seed gives the same numbers.
    const off = await skillSensitivity(p, spec, { ...o, noise: 0.5, rng: new Rng(2) });
    expect(off.steps).toBeGreaterThan(k.steps);
    expect(await skillSensitivity(p, spec, { ...o, noise: 0.5, rng: new Rng(2) })).toEqual(off);
    await expect(skillSensitivity(p, spec, { ...o, noise: 0.5 })).rejects.toThrow(/noise > 0 needs an rng/);
    expect(tf.memory().numTensors).toBe(before);
    disposePolicy(p);
  });
});
