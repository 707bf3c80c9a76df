/**
 * Test helper: a worker `WeightsStore` on a Map, with IndexedDB's semantics (put replaces, deleting a missing key is
 * fine).
 */
import type { StoredWeights } from '../../src/worker/persist';
import type { WeightsStore } from '../../src/worker/weights';

/** A fresh in-memory store; `map` exposes what it holds. */
export function memoryStore(): WeightsStore & { map: Map<string, StoredWeights> } {
  const map = new Map<string, StoredWeights>();
  return {
    map,
    put: async (w) => void map.set(w.name, w),
    get: async (n) => map.get(n),
    list: async () =>
      [...map.values()]
        .map(({ name, modelSize, savedAt }) => ({ name, modelSize, savedAt }))
        .sort((a, b) => b.savedAt - a.savedAt),
    delete: async (n) => void map.delete(n),
  };
}
