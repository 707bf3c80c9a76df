/**
 * searchqa tasks: (preset, split, index) → one question (questions.ts), identical on every machine (the
 * reproducibility contract, docs/architecture.md). An `Rng` seeded with `searchqa/<tag>/<preset>/<split>/<index>`
 * (world.ts SEARCHQA_SEED_TAG) draws the subset uniformly among the split's subsets, then the question.
 *
 * Splits (world.ts has two disjoint worlds):
 * - `train`: the seen world, six subsets (no `bamboogle`, which is test-only as in Search-R1's evaluation).
 * - `val`: task i is `train` task TRAIN_TASK_INDICES + i, labelled `val` (an address no training step draws).
 * - `test-seen`: the seen world, all seven subsets. Its questions may repeat a train question (a finite graph), as
 *   ALFWorld's seen split repeats its rooms; what it adds over train is `bamboogle`.
 * - `test-unseen`: the unseen world, all seven subsets: every entity of its questions (subject, bridge, answer) is
 *   absent from every train, val and test-seen question.
 */
import { Rng, hash32 } from '../../rng';
import { SPLITS, TRAIN_TASK_INDICES, type Split, type TaskRef } from '../types';
import { SUBSETS, makeQuestion, type Question, type Subset } from './questions';
import { SEARCHQA_SEED_TAG } from './world';

/** Presets (the first is the default). */
export const SEARCHQA_PRESETS: readonly string[] = ['default'];
/** Max actions per episode (Search-R1's max turns on its seven benchmarks: 4). */
export const SEARCHQA_MAX_STEPS = 4;
/** Task types: the seven subsets. */
export const SEARCHQA_TASK_TYPES: readonly string[] = SUBSETS;
/** The subsets `train` and `val` draw from (all but the test-only `bamboogle`). */
export const TRAIN_SUBSETS: readonly Subset[] = SUBSETS.filter((s) => s !== 'bamboogle');

/** One task: its address and its question. */
export interface SearchQaTask {
  readonly split: Split;
  readonly index: number;
  readonly question: Question;
}

/** @throws Error naming the accepted presets on an unknown one. */
export function checkPreset(preset: string): void {
  if (!SEARCHQA_PRESETS.includes(preset))
    throw new Error(`searchqa: unknown preset "${preset}"; accepted: ${SEARCHQA_PRESETS.join(', ')}`);
}

/** @throws Error when the split is unknown or the index is not a non-negative safe integer. */
export function checkTaskRef(ref: TaskRef): void {
  if (!ref || !SPLITS.includes(ref.split))
    throw new Error(`searchqa: unknown split "${ref?.split}"; accepted: ${SPLITS.join(', ')}`);
  if (!Number.isSafeInteger(ref.index) || ref.index < 0)
    throw new Error(`searchqa: task index must be a non-negative integer, got ${ref.index}`);
}

/** The subsets a split draws from. */
export function subsetsOf(split: Split): readonly Subset[] {
  return split === 'train' || split === 'val' ? TRAIN_SUBSETS : SUBSETS;
}

/** The task at (preset, split, index). @throws Error on an unknown preset or split, or a bad index. */
export function generateTask(preset: string, ref: TaskRef): SearchQaTask {
  checkPreset(preset);
  checkTaskRef(ref);
  const addr = ref.split === 'val' ? { split: 'train', index: TRAIN_TASK_INDICES + ref.index } : ref;
  const rng = new Rng(hash32(`searchqa/${SEARCHQA_SEED_TAG}/${preset}/${addr.split}/${addr.index}`));
  const subsets = subsetsOf(ref.split);
  const subset = subsets[rng.int(subsets.length)];
  return { split: ref.split, index: ref.index, question: makeQuestion(subset, rng, ref.split === 'test-unseen') };
}
