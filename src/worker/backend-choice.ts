/**
 * Where the page remembers the backend its timed probe chose (src/core/bench/probe.ts): one record in its own
 * IndexedDB database, `opd-backend-choice`, read back as an unknown value and validated there. Used by the worker
 * (read after each `auto` start, write after a probe) and by the page's "Probe again" (forget, then reload).
 * Storage failures (private mode, quota) never stop the page: a read then yields nothing and a write is skipped.
 */
import { openDB, type IDBPDatabase } from 'idb';

const DB_NAME = 'opd-backend-choice';
const STORE = 'choice';
const KEY = 'auto';

let db: Promise<IDBPDatabase> | null = null;

/** Opens (once) the database; rejects when IndexedDB is unavailable. */
function open(): Promise<IDBPDatabase> {
  db ??= openDB(DB_NAME, 1, {
    upgrade(d) {
      if (!d.objectStoreNames.contains(STORE)) d.createObjectStore(STORE);
    },
  });
  return db;
}

/** The stored value as it is (unvalidated), or undefined when there is none or storage cannot be read. */
export async function loadBackendChoice(): Promise<unknown> {
  try {
    return await (await open()).get(STORE, KEY);
  } catch {
    return undefined;
  }
}

/**
 * Stores `record` (replacing the previous one). Returns false when storage failed (the choice is then not remembered).
 */
export async function saveBackendChoice(record: unknown): Promise<boolean> {
  try {
    await (await open()).put(STORE, record, KEY);
    return true;
  } catch {
    return false;
  }
}

/** Forgets the remembered choice, so the next `auto` start probes again. Never rejects. */
export async function forgetBackendChoice(): Promise<void> {
  try {
    await (await open()).delete(STORE, KEY);
  } catch {
    // nothing stored, or no storage: nothing to forget
  }
}
