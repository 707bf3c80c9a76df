/**
 * The explorer's trajectory store: every group of the last N steps, one group of every 10th older step, and a byte
 * bound that holds after every add (oldest first), with the byte estimate computed by hand for a known group.
 */
import { describe, expect, it } from 'vitest';
import type { GroupDetail, StepDetail } from '../../src/core/train/step-detail';
import { OBJECT_BYTES, TrajectoryStore, groupBytes } from '../../src/worker/trajectory-store';

/** A group of one trajectory with one turn: a 3-token prompt and 2 action tokens; strings of known lengths. */
function group(step: number, g: number): GroupDetail {
  const f = (n: number) => new Float32Array(n);
  return {
    step,
    group: g,
    task: 'put apple',
    taskType: 'pick',
    taskIndex: 7,
    trajectories: [
      {
        success: g % 2 === 0,
        reward: 1,
        score: 1,
        advantage: 0.5,
        invalidCount: 0,
        initialObservation: 'room',
        turns: [
          {
            prompt: new Int32Array([1, 3, 9]),
            observation: 'room',
            reply: 'done',
            action: 'go',
            valid: true,
            reward: 1,
            done: true,
            tokenStart: 0,
            tokenCount: 2,
          },
        ],
      },
    ],
    tokens: {
      ids: new Int32Array(2),
      adv: f(2),
      aEp: f(2),
      aSkill: null,
      logpSkill: null,
      logpOld: f(2),
      logpRef: null,
      entropy: f(2),
      ratio: f(2),
    },
  };
}
const stepOf = (step: number, groups = 2): StepDetail => ({
  step,
  groups: Array.from({ length: groups }, (_, g) => group(step, g)),
});
const layout = (s: TrajectoryStore) =>
  s.index().steps.map((x) => `${x.step}:${x.groups.map((g) => g.group).join(',')}`);

describe('TrajectoryStore', () => {
  it(
    'estimates bytes: typed arrays by byteLength, strings at 2 bytes per char, one header per record and ' + 'array',
    () => {
      const O = OBJECT_BYTES;
      const strings =
        2 * ('put apple'.length + 'pick'.length + 'room'.length + 'room'.length + 'done'.length + 'go'.length);
      const arrays = O + 8 /* ids */ + 5 * (O + 8) /* adv, aEp, logpOld, entropy, ratio */ + (O + 12); /* prompt */
      const records =
        O /* group */ + O /* trajectories array */ + O /* trajectory */ + O /* turns array */ + O; /* turn */
      expect(groupBytes(group(1, 0))).toBe(strings + arrays + records);
    },
  );

  it('keeps every group of the last N steps and group 0 of every 10th older step', () => {
    const s = new TrajectoryStore({ recentSteps: 3 });
    for (let k = 1; k <= 25; k++) s.add(stepOf(k));
    expect(layout(s)).toEqual(['10:0', '20:0', '23:0,1', '24:0,1', '25:0,1']);
    expect(s.group(24, 1)?.step).toBe(24);
    expect(s.group(21, 0)).toBeNull();
    expect(s.group(20, 1)).toBeNull();
    expect(s.bytes).toBe(8 * groupBytes(group(1, 0)));
  });

  it('never holds more than maxBytes: drops the oldest first, and a group larger than the bound is not kept', () => {
    const one = groupBytes(group(1, 0));
    const s = new TrajectoryStore({ recentSteps: 20, maxBytes: 5 * one });
    for (let k = 1; k <= 4; k++) {
      s.add(stepOf(k));
      expect(s.bytes).toBeLessThanOrEqual(5 * one);
    }
    // 8 groups added, 5 fit: step 1 and step 2's group 1 went (oldest step first, last group first).
    expect(layout(s)).toEqual(['2:0', '3:0,1', '4:0,1']);
    expect(s.bytes).toBe(5 * one);
    const tiny = new TrajectoryStore({ maxBytes: one - 1 });
    tiny.add(stepOf(1));
    expect(layout(tiny)).toEqual([]);
    expect(tiny.bytes).toBe(0);
  });

  it(
    'a step added again replaces it; clear and new limits apply at once; bad limits are refused naming ' + 'the field',
    () => {
      const s = new TrajectoryStore({ recentSteps: 5 });
      for (let k = 1; k <= 12; k++) s.add(stepOf(k));
      s.add(stepOf(12, 1));
      expect(layout(s)).toEqual(['8:0,1', '9:0,1', '10:0,1', '11:0,1', '12:0']);
      s.setLimits({ recentSteps: 2 });
      expect(layout(s)).toEqual(['10:0', '11:0,1', '12:0']);
      expect(s.index()).toMatchObject({ recentSteps: 2, sampleEvery: 10, bytes: 4 * groupBytes(group(1, 0)) });
      s.clear();
      expect(s.index().steps).toEqual([]);
      expect(s.bytes).toBe(0);
      expect(() => new TrajectoryStore({ recentSteps: 0 })).toThrow(/recentSteps/);
      expect(() => new TrajectoryStore({ maxBytes: 0 })).toThrow(/maxBytes/);
    },
  );
});
