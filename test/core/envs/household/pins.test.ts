/**
 * Pins household task generation: for each preset and split, tasks 0..999 are generated through the public env
 * API (registry → create → reset), each serialised as a stable JSON view (task line, task type, initial
 * observation, admissible actions, max steps, and the generated world: layout, goal, receptacles, objects), and
 * the sha256 of the concatenation must equal the pinned hex below.
 *
 * A change to generation must bump the environment version (EnvSpec.version, HOUSEHOLD_VERSION in presets.ts)
 * and these pins together: weights, run configs and manifests record the version, so tasks must never change
 * under the same version. The `val` split (added later, no version bump: the other splits did not change) is train
 * tasks at indices 1_000_000 + i, labelled val. To recompute the pins after a deliberate change, run this file: a
 * failing pin prints the new digest as `Received`.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getEnvSpec } from '../../../../src/core/envs/registry';
import { SPLITS, type Split } from '../../../../src/core/envs/types';
import type { HouseholdEnv } from '../../../../src/core/envs/household';

const TASKS = 1000;
const spec = getEnvSpec('household');

/** The version these pins were computed for. */
const PINNED_VERSION = 'household-v2';

const PINS: Record<string, Record<Split, string>> = {
  easy: {
    train: '26089a5846ff74b3b8afd3e22a6a5199f46808bf6a6c0ebc22821e1d88d5a72d',
    'test-seen': '4fd1742fd5adf3b5639d785bc5e252d130d0fb07f99904ca2e422157eea30782',
    'test-unseen': 'bad41fc0c86ad7d61a09c73c1104f8b90d6f691cf9153ce561dc2178cffebb81',
    val: 'abb65d386bf998656952bb22345f93b2c13a9e32d789c3914204e6c6f281f2bb',
  },
  default: {
    train: '8aff661a4a763addc3f58ac874dad84ed68352042ace965d9ea94a462eb8d1c4',
    'test-seen': 'dc057194d5b61832ca502eefc86eb49b2cfb676d7aaac2d85817d757f4851604',
    'test-unseen': '1d35f389bfb7de9d45276365453219901e03792e876856d4f3683e90619c7d1a',
    val: '76ffe08e3537c9be143c142195da23a247188b1542eff24997efab226d930e13',
  },
  'easy-pick2': {
    train: '0ab9d6e85b5ce2fee71f1bff938d873231df5f54a0910b5156434b35bcf4de24',
    'test-seen': '59669cfab87557eeb50f60d5876c30458bebbcb47e0640d668666dfc787c4f60',
    'test-unseen': '66793d5c1f49ee96b0bf31adcea04ebb59a699874344c2979bc5c4a6aa63cec8',
    val: '3eb944ebda5e01e118f9a48f85825919dd22ebe0ae9a8d8e174587c4b20d3a8a',
  },
};

/** One task as a stable JSON line (explicit fields in a fixed order). */
function taskLine(preset: string, split: Split, index: number): string {
  const env = spec.create(preset);
  const r = env.reset({ split, index });
  const w = (env as HouseholdEnv).world;
  return (
    JSON.stringify({
      index,
      task: r.task,
      taskType: r.taskType,
      observation: r.observation,
      admissible: env.admissibleActions(),
      maxSteps: env.maxSteps,
      world: {
        layout: w.layout,
        split: w.split,
        index: w.index,
        preset: w.preset,
        at: w.at,
        holding: w.holding,
        goal: { type: w.goal.type, object: w.goal.object, target: w.goal.target },
        receptacles: w.receptacles.map((x) => [x.name, x.kind, x.num, x.closable, x.open]),
        things: w.things.map((t) => [t.name, t.kind, t.num, t.location, t.takeable, t.clean, t.hot, t.cold]),
      },
    }) + '\n'
  );
}

/** sha256 (hex) of tasks 0..TASKS−1 of a preset and split. */
function digest(preset: string, split: Split): string {
  const h = createHash('sha256');
  for (let i = 0; i < TASKS; i++) h.update(taskLine(preset, split, i));
  return h.digest('hex');
}

describe(`household generation pins (${TASKS} tasks per preset and split)`, () => {
  it('the pins are for the current environment version (bump both together)', () => {
    expect(spec.version).toBe(PINNED_VERSION);
    expect(Object.keys(PINS).sort()).toEqual([...spec.presets].sort());
  });
  for (const preset of Object.keys(PINS))
    for (const split of SPLITS)
      it(`${preset} / ${split}`, () => {
        expect(
          digest(preset, split),
          `household ${preset}/${split} tasks changed: bump EnvSpec.version and these pins together`,
        ).toBe(PINS[preset][split]);
      });
});
