/**
 * The `household` environment: ALFWorld-like rooms with numbered receptacles and objects, six task types
 * (pick, look, clean, heat, cool, pick2), an expert, and train / test-seen / test-unseen splits
 * (ALFWorld, Shridhar et al. 2021). See `env.ts` for actions, reward and `done`; `rules.ts` for the
 * preconditions; `presets.ts` for the presets and the unseen hold-out.
 */
import type { Analyzer, AnalyzerOptions, Env, EnvSpec, Expert } from '../types';
import { HouseholdEnv } from './env';
import { HouseholdExpert } from './expert';
import { householdCommands } from './commands';
import { householdSearchSteps } from './search';
import { HOUSEHOLD_VERSION, PRESET_NAMES, PRESET_SUMMARIES, RUN_PRESET, presetConfig } from './presets';
import { householdCorpus } from './vocab';
import { HeuristicAnalyzer } from './analyzer/heuristic';
import { HOUSEHOLD_PROMPT } from './analyzer/prompt-examples';

export { HouseholdEnv } from './env';
export { HouseholdExpert, expertAction, expertPlan, subgoals } from './expert';
export { HOUSEHOLD_VERSION, PRESET_NAMES, RUN_PRESET, isHeldOutCombo } from './presets';
export { HeuristicAnalyzer } from './analyzer/heuristic';
export { householdCommands } from './commands';
export { householdSearchSteps } from './search';
export { TASK_TYPES, type TaskType } from './catalog';
export type { Goal, World } from './world';

/**
 * The household env family, registered as `household`. Presets: `default` (all six types), `easy` (pick only, the
 * runs' default), `easy-pick2` (easy's rooms with pick2). Base policies: public/base/household-<preset>.* (the
 * default stem). Embedded analyzer: the `heuristic` one of analyzer/heuristic.ts.
 */
export const household: EnvSpec = {
  name: 'household',
  version: HOUSEHOLD_VERSION,
  summary: 'ALFWorld-like rooms: find, treat and place objects in numbered receptacles, six task types',
  presets: PRESET_NAMES,
  defaultPreset: RUN_PRESET,
  presetSummaries: PRESET_SUMMARIES,
  /** Task types present in a preset. @throws Error naming the accepted presets on an unknown one. */
  taskTypes(preset: string): readonly string[] {
    return presetConfig(preset).taskTypes;
  },
  /** A fresh env for a preset. @throws Error naming the accepted presets on an unknown one. */
  create(preset: string): Env {
    return new HouseholdEnv(preset);
  },
  /** The expert bound to an env made by `create`. @throws Error for any other env. */
  expert(env: Env): Expert {
    if (!(env instanceof HouseholdEnv)) throw new Error('household.expert: env must come from household.create()');
    return new HouseholdExpert(() => env.world);
  },
  /** Every word the env can emit (see `vocab.ts`). */
  vocabularyCorpus(): string[] {
    return householdCorpus();
  },
  /** The commands a preset can offer, as forms (see `commands.ts`). @throws Error on an unknown preset. */
  commands(preset: string) {
    return householdCommands(preset);
  },
  /** `go to` / `open` steps before the task's object was in sight (see `search.ts`). */
  searchSteps(task, steps) {
    return householdSearchSteps(task, steps);
  },
  /** The embedded `heuristic` analyzer (analyzer/heuristic.ts). @throws Error on a bad K. */
  analyzer(opts: AnalyzerOptions): Analyzer {
    return new HeuristicAnalyzer(opts);
  },
  /** Two worked examples for the `http` analyzer's prompt (analyzer/prompt-examples.ts), the same for every preset. */
  analyzerPrompt() {
    return HOUSEHOLD_PROMPT;
  },
};
