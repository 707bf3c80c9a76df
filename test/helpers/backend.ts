/** Test helper: activate a tfjs backend in Node (same code path as the CLI). */
import { setupBackend, type NodeBackend } from '../../cli/backend';

/** Activate `name` (default wasm: fastest on the CPU) once per test file. */
export async function useBackend(name: NodeBackend = 'wasm'): Promise<void> {
  await setupBackend(name);
}
