/** Household task generation: determinism, presets, splits and the test-unseen hold-out. */
import { describe, expect, it } from 'vitest';
import { OBJECT_KINDS, RECEPTACLE_KINDS, TASK_TYPES } from '../../../../src/core/envs/household/catalog';
import { generateWorld } from '../../../../src/core/envs/household/generate';
import { household } from '../../../../src/core/envs/household';
import { PRESETS, isHeldOutCombo, layoutSignature } from '../../../../src/core/envs/household/presets';
import { placementGoalMet, type World } from '../../../../src/core/envs/household/world';
import { SPLITS, type Split } from '../../../../src/core/envs/types';

const worlds = (preset: string, split: Split, n: number): World[] =>
  Array.from({ length: n }, (_, index) => generateWorld(preset, { split, index }));

const signature = (w: World): string => layoutSignature(w.receptacles.map((r) => r.kind));

describe('household generation', () => {
  it('pins a few generated tasks (a change here needs a new HOUSEHOLD_VERSION)', () => {
    expect(household.version).toBe('household-v2');
    const env = household.create('easy');
    expect(env.reset({ split: 'train', index: 7 })).toEqual({
      task: 'put a box in garbagecan.',
      taskType: 'pick',
      observation:
        'You are in the middle of a room. Looking quickly around you, you see a countertop 1, a ' +
        'diningtable 1, and a garbagecan 1.',
    });
    const w = generateWorld('default', { split: 'train', index: 7 });
    expect(w.layout).toBe('livingroom-a');
    expect(w.goal).toEqual({ type: 'pick', object: 'keychain', target: 'shelf' });
    expect(w.things.map((t) => `${t.name} @ ${t.location}`)).toEqual([
      'creditcard 1 @ sidetable 1',
      'keychain 1 @ sofa 1',
      'pan 1 @ cabinet 2',
      'pencil 1 @ drawer 1',
    ]);
  });

  it('is deterministic: the same (preset, split, index) gives the same task on every call and env', () => {
    for (const preset of household.presets) {
      for (const split of SPLITS) {
        for (const index of [0, 1, 99, 123456789]) {
          const a = household.create(preset);
          const b = household.create(preset);
          expect(a.reset({ split, index })).toEqual(b.reset({ split, index }));
          expect(a.admissibleActions()).toEqual(b.admissibleActions());
          expect(generateWorld(preset, { split, index })).toEqual(generateWorld(preset, { split, index }));
        }
      }
    }
  });

  it('gives different tasks for different indices and splits', () => {
    const key = (w: World) => JSON.stringify([w.goal, w.receptacles, w.things]);
    const train = new Set(worlds('default', 'train', 200).map(key));
    expect(train.size).toBeGreaterThan(195);
    const seen = worlds('default', 'test-seen', 200).map(key);
    expect(seen.filter((k) => train.has(k)).length).toBeLessThan(5);
  });

  it('rejects bad task refs and presets with messages naming the accepted values', () => {
    const env = household.create('default');
    expect(() => env.reset({ split: 'valid' as Split, index: 0 })).toThrow(/accepted: train, test-seen, test-unseen/);
    for (const index of [-1, 1.5, Number.NaN, Infinity])
      expect(() => env.reset({ split: 'train', index })).toThrow(/non-negative integer/);
    expect(() => household.create('hard')).toThrow(/unknown preset "hard"; accepted: default, easy, easy-pick2/);
    expect(() => household.taskTypes('hard')).toThrow(/accepted: default, easy, easy-pick2/);
  });

  it('default preset: all six task types, 8–14 receptacles, some closed, sane objects', () => {
    expect(household.presets[0]).toBe('default');
    expect(household.taskTypes('default')).toEqual([...TASK_TYPES]);
    const types = new Set<string>();
    for (const split of SPLITS) {
      for (const w of worlds('default', split, 300)) {
        types.add(w.goal.type);
        expect(w.receptacles.length).toBeGreaterThanOrEqual(8);
        expect(w.receptacles.length).toBeLessThanOrEqual(14);
        expect(w.receptacles.some((r) => r.closable && !r.open)).toBe(true);
        checkWorld(w);
      }
    }
    expect([...types].sort()).toEqual([...TASK_TYPES].sort());
  });

  it('easy preset: pick only, 3–4 receptacles, none closed, 1–3 objects', () => {
    expect(household.taskTypes('easy')).toEqual(['pick']);
    for (const split of SPLITS) {
      for (const w of worlds('easy', split, 300)) {
        expect(w.goal.type).toBe('pick');
        expect(w.receptacles.length).toBeGreaterThanOrEqual(3);
        expect(w.receptacles.length).toBeLessThanOrEqual(4);
        expect(w.receptacles.every((r) => r.open && !r.closable)).toBe(true);
        expect(w.things.length).toBeGreaterThanOrEqual(1);
        expect(w.things.length).toBeLessThanOrEqual(3);
        checkWorld(w);
      }
    }
  });

  it('held-out combinations and layouts never appear in 2000 train or test-seen tasks', () => {
    for (const preset of Object.keys(PRESETS)) {
      const unseenLayouts = PRESETS[preset].layouts.filter((l) => l.unseen);
      const unseenSignatures = new Set(unseenLayouts.map((l) => layoutSignature(Object.keys(l.receptacles))));
      for (const split of ['train', 'test-seen'] as const) {
        for (const w of worlds(preset, split, 2000)) {
          expect(isHeldOutCombo(w.goal)).toBe(false);
          expect(unseenLayouts.map((l) => l.name)).not.toContain(w.layout);
          expect(unseenSignatures.has(signature(w))).toBe(false);
        }
      }
    }
  });

  it('test-unseen uses only held-out combinations and layouts, of every task type', () => {
    for (const preset of Object.keys(PRESETS)) {
      const types = new Set<string>();
      for (const w of worlds(preset, 'test-unseen', 500)) {
        expect(isHeldOutCombo(w.goal)).toBe(true);
        expect(PRESETS[preset].layouts.find((l) => l.name === w.layout)?.unseen).toBe(true);
        types.add(w.goal.type);
      }
      expect(types.size).toBe(PRESETS[preset].taskTypes.length);
    }
  });
});

/** Invariants of every generated world. */
function checkWorld(w: World): void {
  const names = [...w.receptacles.map((r) => r.name), ...w.things.map((t) => t.name)];
  expect(new Set(names).size).toBe(names.length);
  for (const x of [...w.receptacles, ...w.things]) {
    expect(x.num).toBeGreaterThanOrEqual(1);
    expect(x.num).toBeLessThanOrEqual(9);
  }
  for (const r of w.receptacles) expect(RECEPTACLE_KINDS).toContain(r.kind);
  for (const t of w.things) {
    expect(w.receptacles.map((r) => r.name)).toContain(t.location);
    if (t.kind !== 'desklamp') expect(OBJECT_KINDS).toContain(t.kind);
  }
  const g = w.goal;
  expect(placementGoalMet(w)).toBe(false);
  expect(w.receptacles.some((r) => r.kind === g.target)).toBe(true);
  const goalObjects = w.things.filter((t) => t.kind === g.object);
  expect(goalObjects.length).toBe(g.type === 'pick2' ? 2 : 1);
  const appliance = { clean: 'sinkbasin', heat: 'microwave', cool: 'fridge' }[g.type as string];
  if (appliance) expect(w.receptacles.some((r) => r.kind === appliance)).toBe(true);
  if (g.type === 'look') {
    const lamp = w.things.find((t) => t.kind === 'desklamp');
    expect(lamp?.location?.split(' ')[0]).toBe(g.target);
  }
}
