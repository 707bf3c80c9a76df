/**
 * Every float32 input through the project's Tanh and Exp kernels and through tfjs' stock wasm kernels (the C library's
 * tanhf and expf), compared word for word: `npx tsx scripts/wasm-unary-exhaustive.ts [--only tanh|exp]`.
 *
 * Runs the 2^32 bit patterns in blocks of 2^24 (a few minutes of CPU) and prints, per function, how many results
 * differ and the first ten (NaN results compare equal whatever their payload). src/core/backend/wasm/tanh.ts and
 * wasm/exp.ts claim the same bits for every input; the unit tests check 2^20 random patterns and the branch edges,
 * this checks them all.
 */
import * as tf from '../src/core/tf';
import { setupBackend } from '../cli/backend';
import { setWasmTanhEnabled } from '../src/core/backend/wasm/tanh';
import { setWasmExpEnabled } from '../src/core/backend/wasm/exp';

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
if (only !== null && only !== 'tanh' && only !== 'exp') throw new Error(`--only must be tanh or exp, got ${only}`);
await setupBackend('wasm');
const BLOCK = 1 << 24;
const u = new Uint32Array(BLOCK),
  x = new Float32Array(u.buffer);
const FUNCS = { tanh: { op: tf.tanh, set: setWasmTanhEnabled }, exp: { op: tf.exp, set: setWasmExpEnabled } } as const;
for (const name of ['tanh', 'exp'] as const) {
  if (only && only !== name) continue;
  const { op, set } = FUNCS[name];
  let bad = 0;
  const examples: string[] = [];
  for (let base = 0; base < 2 ** 32; base += BLOCK) {
    for (let i = 0; i < BLOCK; i++) u[i] = base + i;
    const t = tf.tensor1d(x);
    set(false);
    const a = op(t);
    const want = (a.dataSync() as Float32Array).slice();
    set(true);
    const b = op(t);
    const got = (b.dataSync() as Float32Array).slice();
    tf.dispose([t, a, b]);
    const wu = new Uint32Array(want.buffer),
      gu = new Uint32Array(got.buffer);
    for (let i = 0; i < BLOCK; i++) {
      if (wu[i] === gu[i] || (Number.isNaN(want[i]) && Number.isNaN(got[i]))) continue;
      bad++;
      if (examples.length < 10) examples.push(`${name}(${x[i]}): stock ${want[i]}, ours ${got[i]}`);
    }
  }
  console.log(`${name}: ${bad} of 2^32 float32 inputs differ${examples.length ? `: ${examples.join('; ')}` : ''}`);
}
console.log(`numTensors after: ${tf.memory().numTensors}`);
