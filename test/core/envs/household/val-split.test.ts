/**
 * The household `val` split: task i is the train distribution's task at index TRAIN_TASK_INDICES + i (beyond every
 * index training draws), labelled split `val`, index i; the other splits are unchanged (pins.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { getEnvSpec } from '../../../../src/core/envs/registry';
import { TRAIN_TASK_INDICES } from '../../../../src/core/envs/types';
import { generateWorld } from '../../../../src/core/envs/household/generate';

describe('household val split', () => {
  it('val i is train TRAIN_TASK_INDICES + i, relabelled', () => {
    for (const preset of ['easy', 'default'])
      for (let i = 0; i < 20; i++) {
        const v = generateWorld(preset, { split: 'val', index: i });
        const t = generateWorld(preset, { split: 'train', index: TRAIN_TASK_INDICES + i });
        expect(v.split).toBe('val');
        expect(v.index).toBe(i);
        expect({ ...v, split: 'train', index: TRAIN_TASK_INDICES + i }).toEqual(t);
      }
  });
  it('plays through the env API and refuses bad indices', () => {
    const env = getEnvSpec('household').create('default');
    expect(env.reset({ split: 'val', index: 3 }).task).toMatch(/\.$/);
    expect(() => env.reset({ split: 'val', index: -1 })).toThrow(/non-negative/);
    expect(() => env.reset({ split: 'val', index: Number.MAX_SAFE_INTEGER })).toThrow(/too large/);
  });
});
