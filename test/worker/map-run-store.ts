/**
 * Test helper: a RunStore (src/worker/runs.ts) on Maps with IndexedDB's semantics — one write stores a run's summary
 * and files, reads return copies, delete removes the run's files — plus `snapshot()`, a string of everything stored,
 * to check that a refused operation changed nothing.
 */
import type { RunStore } from '../../src/worker/runs';

/** A fresh in-memory run store and its maps. */
export function mapStore() {
  const metas = new Map<string, unknown>(),
    files = new Map<string, Uint8Array>();
  const store: RunStore = {
    async write(meta, fs) {
      metas.set(meta.id, structuredClone(meta));
      for (const f of fs) files.set(`${meta.id}/${f.name}`, f.data.slice());
    },
    getMeta: async (id) => structuredClone(metas.get(id)),
    listMeta: async () => [...metas.values()].map((m) => structuredClone(m)),
    getFile: async (id, name) => files.get(`${id}/${name}`)?.slice(),
    async delete(id) {
      metas.delete(id);
      for (const k of [...files.keys()]) if (k.startsWith(`${id}/`)) files.delete(k);
    },
  };
  const snapshot = () =>
    JSON.stringify([[...metas].sort(), [...files].sort().map(([k, v]) => [k, Buffer.from(v).toString('base64')])]);
  return { store, metas, files, snapshot };
}
