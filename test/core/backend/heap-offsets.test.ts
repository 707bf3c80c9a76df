/**
 * Byte offsets into tfjs' wasm heap go past 2³¹ once the heap grows beyond 2 GiB (it does when sampling the `small`
 * model for 89 episodes at once, a prefill of [89, 279] tokens). A signed shift (`offset >> 2`) then gives a negative
 * Float32Array index, which reads `undefined` — NaN in the KV cache and NaN logits in every row. Every word index the
 * project's wasm kernels compute from a byte offset must use the unsigned shift (`>>> 2`); this reads their sources.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';

const DIRS = ['src/core/backend', 'src/core/model'];

describe('heap offsets over 2 GiB', () => {
  it('the unsigned shift turns an offset past 2³¹ into a valid word index; the signed one does not', () => {
    const offset = 2 ** 31 + 64;
    expect(offset >>> 2).toBe(2 ** 29 + 16);
    expect(offset >> 2).toBeLessThan(0);
  });
  it('no wasm kernel source shifts a byte offset with the signed >> 2', () => {
    const files = DIRS.flatMap((d) =>
      fs
        .readdirSync(d, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => path.join(d, f)),
    );
    expect(files.length).toBeGreaterThan(20);
    const signed = files
      .flatMap((f) =>
        fs
          .readFileSync(f, 'utf8')
          .split('\n')
          .map((l, i) => [f, i + 1, l] as const),
      )
      .filter(([, , l]) => /[^>]>> 2\b/.test(l));
    expect(signed.map(([f, i]) => `${f}:${i}`)).toEqual([]);
  });
});
