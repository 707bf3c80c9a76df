/**
 * The page's checkpoints of the current run, kept in the worker's memory (worker layer): the weights of each
 * checkpoint the trainer yields (config.checkpointEvery, with valTasks > 0), the solved matrix of their validations
 * (the run record's val.json format, core/run/record.ts), and — once a distillation stage runs from them
 * (Agentic-OPD 2026; docs/references.md#agentic-opd) — its teacher rounds and the student's validations. Behind this
 * module so that a persistent store can back it later; it holds only plain bytes and numbers, no tensors.
 *
 * Memory is bounded: weights are kept up to `budgetBytes` (default 64 MiB; a nano checkpoint is about 0.4 MB, a small
 * one about 3 MB). Past the budget the oldest checkpoint that is not the best-validation one is dropped (its row of
 * the solved matrix stays, marked as without weights), so the student and the most recent teachers remain.
 */
import { addValidation, emptyValRecord, type ValRecord } from '../core/run/record';
import { coverage } from '../core/run/coverage';
import type { SourceCheckpoint } from '../core/run/distill';
import type { RunConfig } from '../core/run/config';
import type { ValidationEvent } from '../core/train/events';
import type { CheckpointsSnapshot, TeacherRoundView } from './api';

/** Default most bytes of checkpoint weights kept (64 MiB). */
export const DEFAULT_CHECKPOINT_BUDGET_BYTES = 64 * 1024 * 1024;

/** The checkpoints of one run, bounded in bytes (module comment). */
export class CheckpointStore {
  private val: ValRecord | null = null;
  private sourceConfig: RunConfig | null = null;
  private readonly weights = new Map<number, Uint8Array>();
  private readonly droppedSteps = new Set<number>();
  private distillState: NonNullable<CheckpointsSnapshot['distill']> | null = null;

  /** @param budgetBytes most bytes of weights kept (> 0). @throws RangeError otherwise. */
  constructor(readonly budgetBytes = DEFAULT_CHECKPOINT_BUDGET_BYTES) {
    if (!(budgetBytes > 0) || !Number.isFinite(budgetBytes))
      throw new RangeError(`checkpoint budget must be a positive number of bytes, got ${budgetBytes}`);
  }

  /** Forget everything (a new run). */
  clear(): void {
    this.val = null;
    this.sourceConfig = null;
    this.weights.clear();
    this.droppedSteps.clear();
    this.distillState = null;
  }

  /** Bytes of weights kept. */
  get usedBytes(): number {
    let n = 0;
    for (const b of this.weights.values()) n += b.byteLength;
    return n;
  }

  /**
   * Record a validation of the run (a row of the solved matrix; a row of that step or later is replaced).
   * @throws RecordError when its task count differs from the earlier rows'.
   */
  addValidation(ev: Pick<ValidationEvent, 'step' | 'samples' | 'passRates' | 'taskTypes'>, cfg: RunConfig): void {
    this.sourceConfig ??= { ...cfg };
    const base =
      this.val ??
      emptyValRecord({ preset: cfg.preset, valTasks: ev.passRates.length, valSamples: ev.samples }, ev.taskTypes);
    this.val = addValidation(base, ev.step, ev.passRates, ev.taskTypes);
  }

  /**
   * Keep checkpoint `step`'s weights (safetensors bytes, not copied: do not modify them afterwards). Over the budget,
   * drops the oldest kept checkpoint other than the best-validation one until it fits; one larger than the whole
   * budget is not kept (its step is listed as dropped).
   */
  addCheckpoint(step: number, bytes: Uint8Array): void {
    this.weights.delete(step);
    if (bytes.byteLength > this.budgetBytes) {
      this.droppedSteps.add(step);
      return;
    }
    const best = this.bestStep();
    while (this.usedBytes + bytes.byteLength > this.budgetBytes) {
      const victim =
        [...this.weights.keys()].sort((a, b) => a - b).find((s) => s !== best) ?? [...this.weights.keys()][0];
      this.weights.delete(victim);
      this.droppedSteps.add(victim);
    }
    this.weights.set(step, bytes);
    this.droppedSteps.delete(step);
  }

  /** The validated checkpoints that still have weights, for core/run/distill.ts `planDistillation`. */
  sources(): SourceCheckpoint[] {
    return [...this.weights]
      .sort((a, b) => a[0] - b[0])
      .map(([step, bytes]) => ({ step, bytes, label: `the checkpoint at step ${step}` }));
  }

  /** The config of the run that made the checkpoints (a copy), or null before the first validation. */
  config(): RunConfig | null {
    return this.sourceConfig ? { ...this.sourceConfig } : null;
  }

  /** The solved matrix (a copy), or null before the first validation. */
  valRecord(): ValRecord | null {
    return this.val ? structuredClone(this.val) : null;
  }

  /** Note that a distillation stage starts from these checkpoints (its earlier rounds and validations are dropped). */
  startDistill(studentStep: number, teachers: readonly number[]): void {
    this.distillState = { studentStep, teachers: [...teachers], rounds: [], validations: [] };
  }

  /** Record a teacher choice of the distillation stage. No-op when none was started. */
  addRound(r: TeacherRoundView): void {
    this.distillState?.rounds.push(structuredClone(r));
  }

  /** Record a validation of the distillation stage's student. No-op when none was started. */
  addDistillValidation(ev: Pick<ValidationEvent, 'step' | 'passRates'>): void {
    if (!this.distillState) return;
    const v = this.distillState.validations.filter((x) => x.step < ev.step);
    this.distillState.validations = [...v, { step: ev.step, passRates: [...ev.passRates] }];
  }

  /** The view's snapshot (copies; no bytes). */
  snapshot(): CheckpointsSnapshot {
    return {
      val: this.valRecord(),
      kept: [...this.weights].sort((a, b) => a[0] - b[0]).map(([step, b]) => ({ step, bytes: b.byteLength })),
      usedBytes: this.usedBytes,
      budgetBytes: this.budgetBytes,
      dropped: [...this.droppedSteps].sort((a, b) => a - b),
      distill: this.distillState ? structuredClone(this.distillState) : null,
    };
  }

  /** Coverage's best checkpoint among the validated ones, or null before any validation. */
  private bestStep(): number | null {
    return this.val && this.val.checkpoints.length ? coverage(this.val).best.step : null;
  }
}
