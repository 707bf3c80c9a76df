/** Household env invariants over many states: the admissible list, state safety, vocabulary coverage. */
import { describe, expect, it } from 'vitest';
import { household } from '../../../../src/core/envs/household';
import type { HouseholdEnv } from '../../../../src/core/envs/household/env';
import { presetConfig } from '../../../../src/core/envs/household/presets';
import { applyAction } from '../../../../src/core/envs/household/rules';
import { cloneWorld } from '../../../../src/core/envs/household/world';
import { Rng } from '../../../../src/core/rng';
import { SPLITS, normalizeAction } from '../../../../src/core/envs/types';
import { pieces } from '../../../../src/core/tokenizer/tokenizer';

/**
 * Visit states along random and expert walks (40 tasks per split and preset); calls `visit` with the env before
 * each step and `emitted` with every text the env shows. Failures are collected, not asserted per state (an
 * `expect` per state makes these walks slow).
 */
function walk(visit: (env: HouseholdEnv) => void, emitted?: (text: string) => void): void {
  const rng = new Rng(9);
  for (const preset of household.presets) {
    const env = household.create(preset) as HouseholdEnv;
    const expert = household.expert(env);
    for (const split of SPLITS) {
      for (let index = 0; index < 40; index++) {
        const first = env.reset({ split, index });
        emitted?.(first.task);
        emitted?.(first.observation);
        const useExpert = index % 2 === 0;
        while (!env.done) {
          visit(env);
          for (const a of env.admissibleActions()) emitted?.(a);
          const a = useExpert && rng.next() < 0.8 ? expert.act() : rng.pick(env.admissibleActions());
          const r = env.step(a); // not inside `emitted?.(…)`: an absent callback would skip the step
          emitted?.(r.observation);
        }
      }
    }
  }
}

describe('household env invariants', () => {
  it('every admissible action is normalised, listed once, valid, and not "Nothing happens."', () => {
    const bad: string[] = [];
    let checked = 0;
    walk((env) => {
      const actions = env.admissibleActions();
      if (new Set(actions).size !== actions.length) bad.push(`duplicates: ${actions.join(' | ')}`);
      const info = actions.filter((a) => a === 'look' || a === 'inventory').join();
      if (info !== (presetConfig(env.preset).infoActions ? 'inventory,look' : '')) bad.push(`info actions: ${info}`);
      for (const a of actions) {
        const r = applyAction(cloneWorld(env.world), a);
        if (normalizeAction(a) !== a || !r.valid || r.observation === 'Nothing happens.') bad.push(a);
        checked++;
      }
    });
    expect(bad.slice(0, 5)).toEqual([]);
    expect(checked).toBeGreaterThan(10_000);
  });

  it('an action outside the admissible list leaves the state unchanged', () => {
    const probes = [
      'take apple 1 from fridge 1',
      'open countertop 1',
      'go to nowhere',
      'heat egg 1 with microwave 1',
      'use desklamp 1',
    ];
    const bad: string[] = [];
    walk((env) => {
      for (const a of probes) {
        if (env.admissibleActions().includes(a)) continue;
        const w = cloneWorld(env.world);
        const before = JSON.stringify(w);
        if (applyAction(w, a).valid || JSON.stringify(w) !== before) bad.push(a);
      }
    });
    expect(bad.slice(0, 5)).toEqual([]);
  });

  it('the vocabulary corpus is deterministic and covers every piece the env emits', () => {
    const corpus = household.vocabularyCorpus();
    expect(household.vocabularyCorpus()).toEqual(corpus);
    const known = new Set(corpus.flatMap((line) => pieces(line)));
    const missing = new Set<string>();
    walk(
      () => {},
      (text) => {
        for (const p of pieces(text)) if (!known.has(p)) missing.add(p);
      },
    );
    expect([...missing]).toEqual([]);
    expect(known.size).toBeLessThan(400);
  });
});
