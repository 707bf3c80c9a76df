/**
 * Microbenchmark of the attention products on tfjs' wasm backend, every candidate back to back in one process:
 * `npx tsx scripts/wasm-matmul-bench.ts [--reps 5]`.
 *
 * `--all` adds the slow candidates. Shapes: the bench model's attention (`npm run bench` defaults, B 32 × T 128):
 * small (4 heads of 32, batch 128) and nano (2 heads of 24, batch 64); for each, the six batched products of one
 * attention layer's forward and backward (q·kᵀ and p·v forward; dC·k, dCᵀ·q, dy·vᵀ and pᵀ·dy backward, as
 * model/ops.ts' bmm and bmmNT call them). Candidates: tfjs' stock kernel (scalar C++ loop), a JavaScript kernel over
 * the wasm heap (i-k-j order, the stock loop's sums), 2-D XNNPACK products per batch entry (unstack, matMul, stack;
 * timed on 8 entries and scaled), and the SIMD kernel of src/core/backend/wasm/batch-matmul.ts with several output
 * tiles. Each result is checked bit for bit against the stock kernel. Prints one line per product and candidate: ms per
 * call (fastest of the interleaved repetitions) and GFLOP/s.
 */
import * as tf from '../src/core/tf';
import { setupBackend } from '../cli/backend';
import { K_BLOCK, type TileShape } from '../src/core/backend/wasm/batch-matmul';
import { setWasmMatMulEnabled, setWasmMatMulTile, wasmMatMulActive } from '../src/core/backend/wasm/kernels';
import { Rng } from '../src/core/rng';

const repsArg = process.argv.indexOf('--reps');
const REPS = repsArg > 0 ? Number(process.argv[repsArg + 1]) : 5;
/** `--all`: also the JavaScript and per-entry XNNPACK candidates (10–100× slower than stock; minutes). */
const ALL = process.argv.includes('--all');

await setupBackend('wasm');
if (!wasmMatMulActive()) throw new Error('the SIMD BatchMatMul is not active');
const rng = new Rng(5);
const randn = (shape: number[]) =>
  tf.tensor(
    Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    shape,
  );

interface Product {
  name: string;
  a: number[];
  b: number[];
  ta: boolean;
  tb: boolean;
}
function products(bh: number, T: number, hs: number): Product[] {
  return [
    { name: 'fwd q·kᵀ  (NT)', a: [bh, T, hs], b: [bh, T, hs], ta: false, tb: true },
    { name: 'fwd p·v   (NN)', a: [bh, T, T], b: [bh, T, hs], ta: false, tb: false },
    { name: 'bwd dC·k  (NN)', a: [bh, T, T], b: [bh, T, hs], ta: false, tb: false },
    { name: 'bwd dCᵀ·q (TN)', a: [bh, T, T], b: [bh, T, hs], ta: true, tb: false },
    { name: 'bwd dy·vᵀ (NT)', a: [bh, T, hs], b: [bh, T, hs], ta: false, tb: true },
    { name: 'bwd pᵀ·dy (TN)', a: [bh, T, T], b: [bh, T, hs], ta: true, tb: false },
  ];
}

/** The stock loop's sums in JavaScript over the heap: i-k-j order, float32 products and sums, blocks of 48. */
function jsMatMul(a: tf.Tensor3D, b: tf.Tensor3D, ta: boolean, tb: boolean): tf.Tensor3D {
  const av = a.dataSync() as Float32Array,
    bv = b.dataSync() as Float32Array; // copies out of the heap, timed too
  const [batch] = a.shape;
  const K = ta ? a.shape[1] : a.shape[2],
    M = ta ? a.shape[2] : a.shape[1],
    N = tb ? b.shape[1] : b.shape[2];
  const out = new Float32Array(batch * M * N),
    s = new Float32Array(N);
  const aRow = ta ? 1 : K,
    aK = ta ? M : 1,
    bK = tb ? 1 : N,
    bJ = tb ? K : 1;
  for (let t = 0; t < batch; t++) {
    const ao = t * M * K,
      bo = t * K * N,
      oo = t * M * N;
    for (let i = 0; i < M; i++) {
      for (let k0 = 0; k0 < K; k0 += K_BLOCK) {
        s.fill(0);
        const kEnd = Math.min(k0 + K_BLOCK, K);
        for (let k = k0; k < kEnd; k++) {
          const x = av[ao + i * aRow + k * aK],
            bb = bo + k * bK;
          for (let j = 0; j < N; j++) s[j] += Math.fround(x * bv[bb + j * bJ]);
        }
        for (let j = 0; j < N; j++) out[oo + i * N + j] = k0 === 0 ? s[j] : out[oo + i * N + j] + s[j];
      }
    }
  }
  return tf.tensor3d(out, [batch, M, N]);
}

/** 2-D XNNPACK products on the first `n` batch entries (slice, matMul with materialised transposes, stack). */
function splitMatMul(a: tf.Tensor3D, b: tf.Tensor3D, ta: boolean, tb: boolean, n: number): tf.Tensor {
  return tf.tidy(() => {
    const parts: tf.Tensor[] = [];
    for (let t = 0; t < n; t++) {
      let x = tf.reshape(tf.slice(a, [t, 0, 0], [1, -1, -1]), a.shape.slice(1)) as tf.Tensor2D;
      let y = tf.reshape(tf.slice(b, [t, 0, 0], [1, -1, -1]), b.shape.slice(1)) as tf.Tensor2D;
      if (ta) x = tf.transpose(x);
      if (tb) y = tf.transpose(y);
      parts.push(tf.matMul(x, y));
    }
    return tf.stack(parts);
  });
}

/** Milliseconds of one call (the result read back). */
function once(f: () => tf.Tensor): number {
  const s = performance.now();
  const y = f();
  y.dataSync();
  const ms = performance.now() - s;
  y.dispose();
  return ms;
}

/**
 * Fastest of REPS calls of each candidate, the candidates interleaved call by call so that other load on the cores
 * falls on all of them alike (the minimum is the figure least disturbed by that load).
 */
function timeAll(cands: [string, () => tf.Tensor, () => void][]): [string, number][] {
  const best = cands.map(() => Infinity);
  // warm-up
  for (const [, f, pre] of cands) {
    pre();
    tf.dispose(f());
  }
  for (let r = 0; r < REPS; r++)
    cands.forEach(([, f, pre], i) => {
      pre();
      best[i] = Math.min(best[i], once(f));
    });
  return cands.map(([name], i) => [name, best[i]]);
}

const TILES: TileShape[] = [
  { rows: 4, vecs: 2 },
  { rows: 2, vecs: 4 },
  { rows: 4, vecs: 3 },
  { rows: 3, vecs: 4 },
  { rows: 4, vecs: 1 },
  { rows: 1, vecs: 4 },
];
const totals = new Map<string, number>();
for (const [model, bh, T, hs] of [
  ['small', 128, 128, 32],
  ['nano', 64, 128, 24],
] as const) {
  console.log(`\n${model}: batch ${bh}, T ${T}, head size ${hs}`);
  for (const p of products(bh, T, hs)) {
    const a = randn(p.a) as tf.Tensor3D,
      b = randn(p.b) as tf.Tensor3D;
    const K = p.ta ? p.a[1] : p.a[2],
      M = p.ta ? p.a[2] : p.a[1],
      N = p.tb ? p.b[1] : p.b[2];
    const flops = 2 * bh * M * N * K;
    setWasmMatMulEnabled(false);
    const ref = tf.matMul(a, b, p.ta, p.tb);
    const refBits = new Uint32Array((ref.dataSync() as Float32Array).slice().buffer);
    const same = (t: tf.Tensor) =>
      new Uint32Array((t.dataSync() as Float32Array).slice().buffer).every((v, i) => v === refBits[i]);
    const stock = () => setWasmMatMulEnabled(false);
    const cands: [string, () => tf.Tensor, () => void][] = [
      ['stock (scalar C++)', () => tf.matMul(a, b, p.ta, p.tb), stock],
    ];
    if (ALL) {
      const js = jsMatMul(a, b, p.ta, p.tb);
      if (!same(js)) throw new Error(`${p.name}: the JavaScript kernel differs from stock`);
      js.dispose();
      cands.push(['js over heap (i-k-j)', () => jsMatMul(a, b, p.ta, p.tb), stock]);
      cands.push(['2-D XNNPACK, 8 of batch', () => splitMatMul(a, b, p.ta, p.tb, 8), stock]);
    }
    for (const tile of TILES) {
      const pre = () => (setWasmMatMulEnabled(true), setWasmMatMulTile(tile));
      pre();
      const y = tf.matMul(a, b, p.ta, p.tb);
      if (!same(y)) throw new Error(`${p.name}: SIMD tile ${tile.rows}×${tile.vecs} differs from stock`);
      y.dispose();
      cands.push([`simd ${tile.rows}×${tile.vecs}·4`, () => tf.matMul(a, b, p.ta, p.tb), pre]);
    }
    const rows = timeAll(cands).map(([n, ms]): [string, number] =>
      n.startsWith('2-D') ? ['2-D XNNPACK per entry', (ms * bh) / 8] : [n, ms],
    );
    setWasmMatMulEnabled(true);
    setWasmMatMulTile();
    for (const [name, ms] of rows) {
      console.log(
        `  ${p.name}  ${name.padEnd(22)} ${ms.toFixed(2).padStart(8)} ms  ` +
          `${(flops / ms / 1e6).toFixed(2).padStart(6)} GFLOP/s`,
      );
      totals.set(`${model} ${name}`, (totals.get(`${model} ${name}`) ?? 0) + ms);
    }
    tf.dispose([a, b, ref]);
  }
}
console.log('\nsum over the six products (ms):');
for (const [k, v] of totals) console.log(`  ${k.padEnd(34)} ${v.toFixed(1).padStart(8)}`);
console.log(`numTensors at the end: ${tf.memory().numTensors}`);
