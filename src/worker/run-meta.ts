/**
 * The summary the page stores beside each run record (worker layer, store `runs`; written by runs.ts, read back by
 * runs-library.ts and run-resume.ts): its zod schemas and types. A leaf module, so the worker's contract (api.ts) can
 * build the Runs view's types on it without importing the store's implementation.
 */
import { z } from 'zod';

/** Where a stored run's initial weights came from (the page's InitSource, with the bytes' sha256). */
export const InitRecordSchema = z.object({
  kind: z.enum(['base', 'checkpoint', 'scratch']),
  /** The stored checkpoint's name (kind `checkpoint`). */
  name: z.string().optional(),
  /** sha256 of the initial weights (hex), when they came from bytes (base or checkpoint). */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
/** InitRecordSchema's type. */
export type InitRecord = z.infer<typeof InitRecordSchema>;

const Nat = z.number().int().nonnegative();
/** The summary of a stored run (store `runs`), checked on every read. */
export const StoredRunMetaSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  /** ms since the epoch. */
  createdAt: z.number(),
  updatedAt: z.number(),
  /** File name → size in bytes, of every file stored for the run. */
  files: z.record(z.string(), Nat),
  stepsDone: Nat,
  stepsPlanned: Nat,
  /**
   * The run ended: it reached its `done` event, or Stop ended it (`stopped`). An ended run is not offered for resuming.
   */
  done: z.boolean(),
  /** Stop ended the run at `stepsDone`, before its planned steps; absent in records written before Stop existed. */
  stopped: z.boolean().optional(),
  /** Step of the latest checkpoint stored with both files, or null. */
  lastCheckpoint: Nat.nullable(),
  init: InitRecordSchema,
  /**
   * Why the run stopped when a non-finite value stopped it (the message of its trainer `error` event, which is also
   * events.jsonl's last line); absent for a run that did not stop on an error.
   */
  error: z.string().optional(),
  /** Set when the run came from an imported file (its name). */
  importedFrom: z.string().optional(),
});
/** StoredRunMetaSchema's type. */
export type StoredRunMeta = z.infer<typeof StoredRunMetaSchema>;
