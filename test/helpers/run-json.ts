/**
 * The run.json of a hand-made run directory (core/run/record.ts's format): a household run trained on wasm, with
 * DEFAULT_CONFIG changed by `config`. Tests that write a run directory by hand start from it.
 */
import { DEFAULT_CONFIG } from '../../src/core/run/config';

/**
 * A run.json object; `config` overrides DEFAULT_CONFIG's fields (unchecked: a test may write a value the schema
 * refuses), `rest` the record's other fields.
 */
export function handRunJson(
  config: Record<string, unknown>,
  rest: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    format: 'opd-playground-run',
    version: 1,
    config: { ...DEFAULT_CONFIG, ...config },
    envVersions: { household: 'household-v2' },
    command: 'train',
    argv: [],
    backend: 'wasm',
    params: 1,
    vocabSize: 2,
    initWeights: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    resumes: [],
    ...rest,
  };
}
