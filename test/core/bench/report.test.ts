import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { benchJson, benchLine, benchRequestSchema, type BenchReport } from '../../../src/core/bench/report';
import { PAGE_BENCH_SIZES, runBench, type BenchResult } from '../../../src/core/bench/workloads';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('cpu'));

const result: BenchResult = {
  backend: 'wasm',
  model: 'nano',
  params: 124224,
  seq: 32,
  batch: 4,
  vocab: 1024,
  trainStepMs: 93,
  trainTokensPerSecond: 1376.15,
  sampleTokensPerSecond: 324.49,
  matmulGflops: 12.15,
  matmulGflopsMedian: 11.8,
  matmulGflopsRuns: [11.8, 12.15, 10.9],
  trainGflops: 1.03,
  trainShareOfMatmul: 0.084,
};

describe('bench report', () => {
  it('one line names the size, each backend with its adapter and numbers, and each failure with its reason', () => {
    const r: BenchReport = {
      size: 'quick',
      userAgent: 'UA',
      cores: 2,
      at: 0,
      restored: 'wasm',
      results: [
        { backend: 'webgl', ok: false, reason: 'OffscreenCanvas missing' },
        { backend: 'wasm', ok: true, adapter: 'WebAssembly · SIMD · 2 threads', result },
        {
          backend: 'webgpu',
          ok: true,
          adapter: 'google',
          result: { ...result, backend: 'webgpu', dispatchesPerTrainStep: 412, dispatchesPerSampledToken: 37.5 },
        },
      ],
    };
    expect(benchLine(r)).toBe(
      'OPD bench quick (nano, B 4 × T 32): webgl: failed (OffscreenCanvas missing); wasm [WebAssembly · ' +
        'SIMD · 2 threads] train 1376 tok/s, ' +
        ('sample 324 tok/s, matmul 12.2 GFLOP/s; webgpu [google] train 1376 tok/s, sample 324 tok/s, ' +
          'matmul 12.2 GFLOP/s, 412 dispatches/step, 37.5 dispatches/token'),
    );
    expect(JSON.parse(benchJson(r))).toEqual(r);
  });
  it('a request needs a known size and at least one known backend', () => {
    expect(benchRequestSchema.safeParse({ size: 'quick', backends: ['wasm'] }).success).toBe(true);
    expect(benchRequestSchema.safeParse({ size: 'huge', backends: ['wasm'] }).success).toBe(false);
    expect(benchRequestSchema.safeParse({ size: 'quick', backends: [] }).error?.issues[0].message).toBe(
      'choose at least one backend',
    );
    expect(benchRequestSchema.safeParse({ size: 'quick', backends: ['tpu'] }).success).toBe(false);
  });
});

describe('runBench at the page quick size', () => {
  it('gives positive finite rates with the quick size and frees every tensor it made', async () => {
    const before = tf.memory().numTensors;
    const r = await runBench({ ...PAGE_BENCH_SIZES.quick, steps: 1, matmulReps: 1 });
    expect(tf.memory().numTensors).toBe(before);
    expect(r).toMatchObject({ backend: 'cpu', model: 'nano', seq: 32, batch: 4, vocab: 1024 });
    for (const k of [
      'trainStepMs',
      'trainTokensPerSecond',
      'sampleTokensPerSecond',
      'matmulGflops',
      'trainGflops',
    ] as const) {
      expect(Number.isFinite(r[k]) && r[k] > 0, k).toBe(true);
    }
    expect(r.trainTokensPerSecond).toBeCloseTo((4 * 32) / (r.trainStepMs / 1000), 6);
    expect(r.kvCacheSpeedup).toBeUndefined();
    // 5 timed matmul repeats (MATMUL_REPEATS): matmulGflops is the best of them, the share divides by it
    expect(r.matmulGflopsRuns).toHaveLength(5);
    expect(r.matmulGflops).toBe(Math.max(...r.matmulGflopsRuns));
    expect(r.matmulGflopsMedian).toBe([...r.matmulGflopsRuns].sort((a, b) => a - b)[2]);
    expect(r.trainShareOfMatmul).toBe(r.trainGflops / r.matmulGflops);
  });
});
