/**
 * KV-cached sampling speed on tfjs' wasm backend, fused decoding step against the composed one, back to back in one
 * process: `npx tsx scripts/wasm-sample-bench.ts [--model small] [--rounds 2]`.
 *
 * Runs `npm run bench`'s sampling workload (B 32 random 16-token prompts, 32 new tokens: src/core/bench/workloads.ts
 * `samplingWorkload`) with src/core/model/decode-wasm.ts switched off (`ops`, transformer.ts decodeStep) and on
 * (`fused`), alternating, `--rounds` times each (one untimed run per setting first), and prints tokens/s of each timed
 * run. Both settings sample the same tokens (test/core/model/decode-wasm.test.ts); only the time differs.
 */
import { setupBackend } from '../cli/backend';
import { setWasmDecodeEnabled } from '../src/core/model/decode-wasm';
import { CLI_BENCH_SIZE, disposeBenchModel, makeBenchModel, samplingWorkload } from '../src/core/bench/workloads';
import type { ModelSize } from '../src/core/model/config';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const rounds = Number(arg('--rounds', '2'));
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${arg('--rounds', '2')}`);
await setupBackend('wasm');
const m = makeBenchModel({ ...CLI_BENCH_SIZE, model: arg('--model', 'small') as ModelSize });
const w = samplingWorkload(m);
for (const on of [false, true]) {
  setWasmDecodeEnabled(on);
  await w.run();
}
for (let r = 0; r < rounds; r++)
  for (const on of [false, true]) {
    setWasmDecodeEnabled(on);
    const t = performance.now();
    await w.run();
    console.log(`${on ? 'fused' : 'ops  '} ${(w.tokens / ((performance.now() - t) / 1000)).toFixed(0)} tokens/s`);
  }
setWasmDecodeEnabled(true);
disposeBenchModel(m);
