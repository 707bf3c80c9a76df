/**
 * Weights in IndexedDB, through the `idb` library.
 * The stored bytes are the same safetensors file the CLI writes (`src/core/model/io.ts`), so a checkpoint saved
 * in the page can be exported and evaluated with `npm run eval -- --policy file.safetensors`, and back.
 * Database `opd-playground`, store `weights`, key = the checkpoint's name.
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

interface Schema extends DBSchema {
  weights: { key: string; value: StoredWeights };
}

let db: Promise<IDBPDatabase<Schema>> | null = null;

function open(): Promise<IDBPDatabase<Schema>> {
  db ??= openDB<Schema>('opd-playground', 1, {
    upgrade(d) {
      d.createObjectStore('weights', { keyPath: 'name' });
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
