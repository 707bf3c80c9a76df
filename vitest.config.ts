/**
 * Vitest config: unit and integration tests in Node (test/core, test/cli), browser end-to-end tests in
 * Chromium (test/e2e). Files run one at a time: the machine has 2 cores and several tests train small models.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 600_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
