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
const PINNED_VERSION = 'shop-v1';
const PINS: Record<Split, string> = {
  train: '2f6d4fd0a69ac55fdd6e14fe5eee7595e17fc5e0b5865b18f5aba8fb05432059',
  'test-seen': '84940874c440b8a630620775456b72db4768717d3b9e30044b343e23203b1a25',
  'test-unseen': '71207ccc1183d663b0c75d33847c26d91639ab69aba5994d82e4d6db98d8cdbd',
  val: 'e2a4159f19c8dedc832d730042012b9f8d9eaae5cde73f205198ea5c6a638ebe',
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
