/**
 * Pins shop task generation: for each split, tasks 0..999 are reset through the env spec (`shop.create`), each
 * serialised as a stable JSON line (task line, task type, reset observation, admissible actions, max steps, and the
 * hidden goal: target id, asked options, price limit), and the sha256 of the concatenation must equal the pinned hex.
 *
 * A change to the catalogue, the tasks or the pages must bump SHOP_VERSION (catalog.ts) and these pins together: run
 * configs and manifests record the version, so tasks never change under one version. To recompute after a deliberate
 * change, run this file: a failing pin prints the new digest as `Received`.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { shop, type ShopEnv } from '../../../../src/core/envs/shop';
import { SPLITS, type Split } from '../../../../src/core/envs/types';

const TASKS = 1000;
const PINNED_VERSION = 'shop-v2';
const PINS: Record<Split, string> = {
  train: '193cd7f451a1eb4c2e26dc6012e3f90ec60d61f9452f227f38f3d9278dd678a0',
  'test-seen': 'a823ddd36a380ed5724225688ea7c38d7913a00937ad44bc90eec92559ba24cb',
  'test-unseen': 'acc570e754dd50bcdd3090400ddc93a1c5be9d868586bb260d1a14a1a207a5fc',
  val: '841ceaf74b82549fb941645792ea2a65dec42b176555380fa23b41ba7efdd98c',
};

function taskLine(env: ShopEnv, split: Split, index: number): string {
  const r = env.reset({ split, index });
  const t = env.state.task;
  return `${JSON.stringify({
    index,
    task: r.task,
    taskType: r.taskType,
    observation: r.observation,
    admissible: env.admissibleActions(),
    maxSteps: env.maxSteps,
    goal: { asin: t.product.asin, options: t.goalOptions, priceUpper: t.product.priceUpper },
  })}\n`;
}

describe('shop task pins', () => {
  it('is pinned for its version', () => {
    expect(shop.version).toBe(PINNED_VERSION);
  });

  for (const split of SPLITS) {
    it(`${split}: tasks 0..${TASKS - 1}`, () => {
      const env = shop.create('default') as ShopEnv;
      const h = createHash('sha256');
      for (let i = 0; i < TASKS; i++) h.update(taskLine(env, split, i));
      expect(h.digest('hex')).toBe(PINS[split]);
    });
  }
});
