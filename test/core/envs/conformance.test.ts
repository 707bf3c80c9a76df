/**
 * The environment conformance suite: every registered environment (src/core/envs/registry.ts ENV_SPECS), every preset
 * of it, must keep the contract of src/core/envs/types.ts that the trainer, the analyzers, the page and the CLI rely
 * on. A new env is picked up as soon as it is registered; nothing here names one.
 *
 * Per env: its spec is well-formed (name, version, summary, a `defaultPreset` among its presets, task types). Per env
 * and preset:
 * - generation is deterministic: the same TaskRef gives the same reset text twice, on one instance and across fresh
 *   instances;
 * - task hashes are pinned: sha256 over the reset texts (task line, task type, first observation) of tasks 0–999 of
 *   every split must equal the digest pinned in PINS below, with the env's version. Generation may change only with
 *   a version bump and new pins together. An env with no entry fails naming the env and printing the entry to paste;
 * - the expert solves 100% of tasks 0–199 of every split, within maxSteps, never `truncated`;
 * - a bad action (`xyzzy`, empty, 5 000 characters, punctuation, non-Latin script, whitespace) gets a well-defined
 *   answer: no throw, a non-empty observation, valid = false, no reward, no success, and the step is counted;
 * - admissible actions are stable (the same list twice) and normalised (`normalizeAction(a) === a`), along the
 *   expert's episodes;
 * - `done` comes at maxSteps (bad actions only), that step alone `truncated`, and a step after `done` throws; a step
 *   before any reset throws.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENV_SPECS } from '../../../src/core/envs/registry';
import { SPLITS, normalizeAction, type EnvSpec, type Split } from '../../../src/core/envs/types';

/** Tasks hashed per split and preset. */
const HASHED_TASKS = 1000;
/** Tasks the expert must solve per split and preset. */
const EXPERT_TASKS = 200;

/** Pinned task digests: env → the version they were computed for, and preset → split → sha256 hex. */
const PINS: Record<string, { version: string; hashes: Record<string, Record<Split, string>> }> = {
  household: {
    version: 'household-v2',
    hashes: {
      default: {
        train: '1e55b4277eb8510836b053539e5d74105ef1b4f7234ca6f44bec8bc970c3a1b6',
        'test-seen': '58fc412e50a1d0d473acd225bd4d591aecc0d955cfc126b433c6af7a7767bda8',
        'test-unseen': '8320f7f9b92002da88c0c65ec22897a1ef9046acded939c1f68a0c5b45cd7612',
        val: 'db958373ea2f7bc21863ab0482913c20cafc8130b3ae029048df8688fdbbcf02',
      },
      easy: {
        train: '86290cab08ee2915c1283ba646e8a959cbddabea2a5b3a1e60ac505aea76c60b',
        'test-seen': '038b57c93e7a220af09749e10ccd5c4f5f60acdfbe2caede685d97d571a50921',
        'test-unseen': 'f49f3f64cb30c91dbc37427b201cce94b9351f29aea260d30693fbfc27dffd9b',
        val: '79d5fbba60024ec797ff1d8f77508ad44fff739c5a2b9f7210adf57d8ae64bb3',
      },
      'easy-pick2': {
        train: 'd4fb0365f51e2be7110a563fe34f182fad1afe8582d0013b09b2c4396b86e56d',
        'test-seen': '0b5ada8b9c13a4592c12f333f8eaba74d4693cddb8e114291095ce942f8a3700',
        'test-unseen': '4c74e1e3b817a49d488b9d78d04a68b897c87a88dd043701117c62c3a17f49a7',
        val: 'c6bcc40cf697a3ccc45854d37151cfdc860c6544a2342e5f0b72f7ed60c0ac42',
      },
    },
  },
  shop: {
    version: 'shop-v2',
    hashes: {
      default: {
        train: 'd6be53f41a7c4cfded1d6160dfa3b2a6e590a1b027ee184f673079d18877456e',
        'test-seen': '18fa94b3492322d8fca27ab608acdf6d27d380a5e668b0b75ebd8d9fe963d5e4',
        'test-unseen': 'f0431c4890c21f7efd292fd9b0d5e40567874f59bf64082c0c8ea8cefc04094d',
        val: '7b38a1c875137feb105664f09acc6f735f793f46fe349da003426ba9502b387a',
      },
    },
  },
  searchqa: {
    version: 'searchqa-v2',
    hashes: {
      default: {
        train: '3f17bc961d59d3ca55889a735d89c6cf944382c73ce60e285e61d203ba7f3ce0',
        'test-seen': '6987d5c44f491fc8a70db20fc42cf37776ace088be92646fe1fc49688030691c',
        'test-unseen': '1e5a1108c98376be7022e8570b1251d8f2371612c92d6043a468bdcacbfbccf6',
        val: '49f2a98a17f4c3ac26be54377989db15525f77fdfe4d12139179f1c8813746a7',
      },
    },
  },
};

/** Actions no env admits, each of another kind (the env must answer, not throw). */
const BAD_ACTIONS: readonly [string, string][] = [
  ['a made-up word', 'xyzzy'],
  ['an empty action', ''],
  ['5 000 characters', 'go to '.repeat(834).slice(0, 5000)],
  ['punctuation', '!?.,;:()[]{}<>"\'`~@#$%^&*-_=+|\\/'],
  ['non-Latin script', 'открыть холодильник 冰箱 ٱلثلاجة'],
  ['whitespace only', ' \t\n '],
];

/** One task's reset text, as hashed: task line, task type and first observation. */
function resetText(spec: EnvSpec, preset: string, split: Split, index: number): string {
  const r = spec.create(preset).reset({ split, index });
  return JSON.stringify([r.task, r.taskType, r.observation]);
}

/** sha256 (hex) of the reset texts of tasks 0..HASHED_TASKS−1 of a split, on one instance. */
function digest(spec: EnvSpec, preset: string, split: Split): string {
  const env = spec.create(preset);
  const h = createHash('sha256');
  for (let i = 0; i < HASHED_TASKS; i++) {
    const r = env.reset({ split, index: i });
    h.update(JSON.stringify([r.task, r.taskType, r.observation]) + '\n');
  }
  return h.digest('hex');
}

/** Every preset's digests of an env, as a PINS entry. */
function pinsOf(spec: EnvSpec): (typeof PINS)[string] {
  const hashes: Record<string, Record<Split, string>> = {};
  for (const preset of spec.presets)
    hashes[preset] = Object.fromEntries(SPLITS.map((s) => [s, digest(spec, preset, s)])) as Record<Split, string>;
  return { version: spec.version, hashes };
}

describe('every registered environment keeps the Env contract', () => {
  it('at least one env is registered, each name once', () => {
    expect(ENV_SPECS.length).toBeGreaterThan(0);
    expect(new Set(ENV_SPECS.map((s) => s.name)).size).toBe(ENV_SPECS.length);
  });

  for (const spec of ENV_SPECS)
    describe(`${spec.name}`, () => {
      it('has a well-formed spec: name, version, summary, presets, a default preset among them, task types', () => {
        expect(spec.name).toMatch(/^[a-z][a-z0-9-]*$/);
        expect(spec.version.length).toBeGreaterThan(0);
        expect(spec.summary.trim().length).toBeGreaterThan(0);
        expect(spec.presets.length).toBeGreaterThan(0);
        expect(new Set(spec.presets).size).toBe(spec.presets.length);
        expect(spec.presets).toContain(spec.defaultPreset);
        for (const p of spec.presets) expect(spec.taskTypes(p).length).toBeGreaterThan(0);
        expect(() => spec.create('no-such-preset')).toThrow();
        expect(spec.vocabularyCorpus().length).toBeGreaterThan(0);
      });

      it(`has pinned task digests for its version (${HASHED_TASKS} tasks of every split and preset)`, () => {
        const got = pinsOf(spec);
        const pinned = PINS[spec.name];
        if (!pinned)
          expect.fail(
            `env "${spec.name}" has no pinned task digests; add this entry to PINS in ` +
              `test/core/envs/conformance.test.ts:\n  ${JSON.stringify(spec.name)}: ${JSON.stringify(got, null, 2)},`,
          );
        expect(
          got,
          `${spec.name}: tasks or version changed — generation may change only with a version bump ` +
            `(EnvSpec.version) and new pins together; the entry now: ${JSON.stringify(got, null, 2)}`,
        ).toEqual(pinned);
      });

      for (const preset of spec.presets)
        describe(`${spec.name}/${preset}`, () => {
          it('generates the same task from the same ref, on one instance and on fresh ones', () => {
            const env = spec.create(preset);
            for (const split of SPLITS)
              for (const index of [0, 1, 7, 999, 123_456]) {
                const a = resetText(spec, preset, split, index);
                expect(resetText(spec, preset, split, index)).toBe(a);
                const r = env.reset({ split, index });
                expect(JSON.stringify([r.task, r.taskType, r.observation])).toBe(a);
                expect(spec.taskTypes(preset)).toContain(r.taskType);
                expect(env.steps).toBe(0);
              }
          });

          for (const split of SPLITS)
            it(`the expert solves tasks 0–${EXPERT_TASKS - 1} of ${split}; admissible lists stable`, () => {
              const env = spec.create(preset);
              const failed: number[] = [];
              for (let index = 0; index < EXPERT_TASKS; index++) {
                env.reset({ split, index });
                const expert = spec.expert(env);
                let last: { done: boolean; success: boolean; truncated?: true } = { done: false, success: false };
                while (!last.done) {
                  const admissible = env.admissibleActions();
                  expect(env.admissibleActions()).toEqual(admissible);
                  for (const a of admissible) expect(normalizeAction(a)).toBe(a);
                  last = env.step(expert.act());
                  if (last.truncated !== undefined) failed.push(index);
                }
                if (!last.success || env.steps > env.maxSteps) failed.push(index);
              }
              expect(failed, `${spec.name}/${preset} ${split}: the expert failed tasks ${failed.join(', ')}`).toEqual(
                [],
              );
            });

          for (const [what, action] of BAD_ACTIONS)
            it(`answers ${what} without throwing: not valid, no reward, the step counted`, () => {
              const env = spec.create(preset);
              env.reset({ split: 'train', index: 3 });
              const before = env.admissibleActions();
              expect(before).not.toContain(normalizeAction(action));
              const r = env.step(action);
              expect(typeof r.observation).toBe('string');
              expect(r.observation.length).toBeGreaterThan(0);
              expect(r.valid).toBe(false);
              expect(r.reward).toBe(0);
              expect(r.success).toBe(false);
              expect(env.steps).toBe(1);
              expect(r.done).toBe(env.maxSteps === 1);
            });

          it('ends at maxSteps, and a step after done or before reset throws', () => {
            expect(() => spec.create(preset).step('xyzzy')).toThrow();
            const env = spec.create(preset);
            env.reset({ split: 'test-seen', index: 5 });
            expect(env.maxSteps).toBeGreaterThan(0);
            for (let i = 1; i <= env.maxSteps; i++) {
              const r = env.step('xyzzy');
              expect(env.steps).toBe(i);
              expect(r.done).toBe(i === env.maxSteps);
              expect(r.truncated).toBe(i === env.maxSteps ? true : undefined);
            }
            expect(() => env.step('xyzzy')).toThrow();
            // a new reset starts over
            env.reset({ split: 'test-seen', index: 5 });
            expect(env.steps).toBe(0);
            expect(env.step('xyzzy').done).toBe(env.maxSteps === 1);
          });
        });
    });
});
