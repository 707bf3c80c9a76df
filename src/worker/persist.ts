/**
 * Weights and run records in IndexedDB, through the `idb` library.
 * The stored bytes are the same files the CLI writes: safetensors weights (`src/core/model/io.ts`), so a checkpoint
 * saved in the page can be exported and evaluated with `npm run eval -- --policy file.safetensors`, and back; and the
 * files of a run directory (`src/core/run/record.ts`: run.json, events.jsonl, ckpt-<k>.safetensors, ckpt-<k>.state,
 * val.json, plus trajectories.jsonl), so a stored run exports as the CLI's run record.
 *
 * Database `opd-playground`, version 2:
 * - store `weights` (since version 1), key = the checkpoint's name;
 * - store `runs` (version 2), key = the run's id: its summary (`src/worker/runs.ts` StoredRunMeta, validated there);
 * - store `runFiles` (version 2), key = [run id, file name]: one file's bytes, index `byRun` on the run id.
 * Upgrading from version 1 adds the two run stores and keeps every stored weight.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

/** One stored checkpoint. */
export interface StoredWeights {
  /** Unique name (the key). */
  name: string;
  /** safetensors bytes. */
  bytes: Uint8Array;
  /** Model size, e.g. `nano`. */
  modelSize: string;
  /** When it was saved (ms since the epoch). */
  savedAt: number;
}

/** One file of a stored run: bytes under [runId, name]. */
export interface StoredRunFile {
  runId: string;
  name: string;
  data: Uint8Array;
}

interface Schema extends DBSchema {
  weights: { key: string; value: StoredWeights };
  runs: { key: string; value: { id: string } & Record<string, unknown> };
  runFiles: { key: [string, string]; value: StoredRunFile; indexes: { byRun: string } };
}

/** The database version this code opens (module comment). */
export const DB_VERSION = 2;

let db: Promise<IDBPDatabase<Schema>> | null = null;

function open(): Promise<IDBPDatabase<Schema>> {
  db ??= openDB<Schema>('opd-playground', DB_VERSION, {
    upgrade(d, oldVersion) {
      if (oldVersion < 1) d.createObjectStore('weights', { keyPath: 'name' });
      if (oldVersion < 2) {
        d.createObjectStore('runs', { keyPath: 'id' });
        d.createObjectStore('runFiles', { keyPath: ['runId', 'name'] }).createIndex('byRun', 'runId');
      }
    },
  });
  return db;
}

/** Store (or replace) a checkpoint. @throws Error from IndexedDB (quota exceeded, private mode) with its message. */
export async function putWeights(w: StoredWeights): Promise<void> {
  await (await open()).put('weights', w);
}

/** A stored checkpoint, or undefined. */
export async function getWeights(name: string): Promise<StoredWeights | undefined> {
  return (await open()).get('weights', name);
}

/** Names, sizes and dates of stored checkpoints (no bytes), newest first. */
export async function listWeights(): Promise<Omit<StoredWeights, 'bytes'>[]> {
  const all = await (await open()).getAll('weights');
  return all.map(({ bytes: _b, ...rest }) => rest).sort((a, b) => b.savedAt - a.savedAt);
}

/** Delete a checkpoint (no error if absent). */
export async function deleteWeights(name: string): Promise<void> {
  await (await open()).delete('weights', name);
}

/**
 * In one transaction: put a run's summary, put `files`, delete the files named in `remove`. All or nothing: on an
 * error (a QuotaExceededError when storage is full) nothing of it is kept and the run stays as it was.
 * @throws the IndexedDB error (its `name` is kept, e.g. `QuotaExceededError`).
 */
export async function writeRun(
  meta: { id: string } & Record<string, unknown>,
  files: readonly { name: string; data: Uint8Array }[],
  remove: readonly string[] = [],
): Promise<void> {
  const tx = (await open()).transaction(['runs', 'runFiles'], 'readwrite');
  const f = tx.objectStore('runFiles');
  await Promise.all([
    tx.objectStore('runs').put(meta),
    ...files.map((x) => f.put({ runId: meta.id, name: x.name, data: x.data })),
    ...remove.map((n) => f.delete([meta.id, n])),
    tx.done,
  ]);
}

/** A run's stored summary as read (unvalidated: runs.ts validates it), or undefined. */
export async function getRunMeta(id: string): Promise<unknown> {
  return (await open()).get('runs', id);
}

/** Every stored run summary as read (unvalidated). */
export async function listRunMeta(): Promise<unknown[]> {
  return (await open()).getAll('runs');
}

/** One file of a stored run, or undefined. */
export async function getRunFile(id: string, name: string): Promise<Uint8Array | undefined> {
  return (await (await open()).get('runFiles', [id, name]))?.data;
}

/** Delete a run's summary and every file of it, in one transaction (no error if absent). */
export async function deleteRun(id: string): Promise<void> {
  const tx = (await open()).transaction(['runs', 'runFiles'], 'readwrite');
  const keys = await tx.objectStore('runFiles').index('byRun').getAllKeys(id);
  await Promise.all([
    tx.objectStore('runs').delete(id),
    ...keys.map((k) => tx.objectStore('runFiles').delete(k)),
    tx.done,
  ]);
}
