/**
 * `npm run bench -- --model small --seq 128 --batch 32 --backend cpu|wasm|webgpu [--steps 10] [--json]`.
 * Prints one JSON line: `trainTokensPerSecond` (forward + backward + Adam on random tokens, next-token
 * cross-entropy over all positions with a vocabulary of 1024 — the same work as a PyTorch peer of the bench model),
 * `sampleTokensPerSecond` (KV-cached generation, batch × new tokens / s) and the backend's own `matmulGflops`
 * (a 512×512 by 512×512 float32 matmul) measured in the same process; and `opidOverGrpo`, the ratio of the mean
 * wall time of an OPID training step to a GRPO step (same seed and settings). Speed is measured here, never
 * in tests.
 */
import { exitOnClosedStdout } from './files';
import { parseArgs, usage, UsageError, USAGE_EXIT_CODE } from './args';
import { setupBackend, NODE_BACKENDS } from './backend';
import * as tf from '../src/core/tf';
import { Rng } from '../src/core/rng';
import { modelConfig, MODEL_SIZES } from '../src/core/model/config';
import { countParams, initValues, makeVariables } from '../src/core/model/params';
import { forward, logits } from '../src/core/model/transformer';
import { sampleResponses } from '../src/core/model/sample';
import { freeMaskRow } from '../src/core/model/scoring';
import { train } from '../src/core/train/trainer';

exitOnClosedStdout();

const SPEC = {
  model: { type: 'string', help: 'model size', default: 'small', choices: MODEL_SIZES },
  seq: { type: 'int', help: 'sequence length T', default: 128, min: 2, max: 512 },
  batch: { type: 'int', help: 'batch size B', default: 32, min: 1, max: 1024 },
  vocab: { type: 'int', help: 'vocabulary size', default: 1024, min: 32, max: 65536 },
  steps: { type: 'int', help: 'timed training steps', default: 10, min: 1, max: 1000 },
  warmup: { type: 'int', help: 'untimed warm-up steps', default: 2, min: 0, max: 100 },
  'opid-steps': { type: 'int', help: 'training steps timed for the OPID/GRPO step-time ratio (household/easy, nano, B 4, G 4; 0 = skip)', default: 3, min: 0, max: 100 },
  'new-tokens': { type: 'int', help: 'tokens generated per row in the sampling benchmark', default: 32, min: 1, max: 256 },
  backend: { type: 'string', help: 'tfjs backend', default: 'wasm', choices: NODE_BACKENDS },
  json: { type: 'boolean', help: 'print one JSON line' },
  help: { type: 'boolean', help: 'show this help' },
} as const;

const now = () => performance.now();

/** Mean step wall time (ms) of `steps` GRPO and OPID steps from the same fresh nano policy (household/easy, B 4, G 4). */
async function opidRatio(steps: number, backend: string): Promise<{ grpo: number; opid: number }> {
  const out = { grpo: 0, opid: 0 };
  for (const algo of ['grpo', 'opid'] as const) {
    let sum = 0;
    for await (const e of train({ algo, init: 'scratch', model: 'nano', preset: 'easy', steps, tasksPerStep: 4, groupSize: 4, miniBatches: 4, evalEvery: 0, seed: 1 }, { backend }))
      if (e.event === 'step') sum += e.stepMs;
    out[algo] = sum / steps;
  }
  return out;
}

async function matmulGflops(): Promise<number> {
  const n = 512;
  const a = tf.randomNormal([n, n]), b = tf.randomNormal([n, n]);
  for (let i = 0; i < 2; i++) tf.dispose(await tf.matMul(a, b).data());
  const reps = 10, t = now();
  for (let i = 0; i < reps; i++) {
    const c = tf.matMul(a, b);
    await c.data();
    c.dispose();
  }
  tf.dispose([a, b]);
  return (2 * n ** 3 * reps) / ((now() - t) / 1000) / 1e9;
}

async function main(): Promise<void> {
  let a;
  try {
    a = parseArgs(process.argv.slice(2), SPEC);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`bench: ${e.message}\n${usage('npm run bench --', SPEC)}\n`);
      process.exit(USAGE_EXIT_CODE);
    }
    throw e;
  }
  if (a.help) return void process.stdout.write(usage('npm run bench --', SPEC) + '\n');
  const backend = await setupBackend(a.backend);
  const base = modelConfig(a.model, a.vocab);
  const cfg = { ...base, maxSeq: Math.max(base.maxSeq, a.seq) };
  const rng = new Rng(0);
  const p = makeVariables(cfg, initValues(cfg, rng));
  const opt = tf.train.adam(1e-3);
  const B = a.batch, T = a.seq, V = a.vocab;
  const ids = tf.tensor2d(Int32Array.from({ length: B * T }, () => rng.int(V)), [B, T], 'int32');
  const targets = tf.tensor1d(Int32Array.from({ length: B * T }, () => rng.int(V)), 'int32');
  const pos = tf.tensor2d(Int32Array.from({ length: B * T }, (_, i) => i % T), [B, T], 'int32');
  const oh = tf.oneHot(targets, V);
  const step = async () => {
    const { value, grads } = tf.variableGrads(() => {
      const { hidden } = forward(p, cfg, ids, pos);
      const lsm = tf.logSoftmax(logits(p, tf.reshape(hidden, [B * T, -1]) as tf.Tensor2D));
      return tf.neg(tf.mean(tf.sum(tf.mul(lsm, oh), 1))) as tf.Scalar;
    }, Object.values(p) as tf.Variable[]);
    opt.applyGradients(grads as Parameters<typeof opt.applyGradients>[0]);
    await value.data();
    tf.dispose([value, ...Object.values(grads)]);
  };
  for (let i = 0; i < a.warmup; i++) await step();
  let t = now();
  for (let i = 0; i < a.steps; i++) await step();
  const trainMs = (now() - t) / a.steps;
  // KV-cached sampling: B prompts of 16 tokens, `new-tokens` tokens each, free decoding without <eos>.
  const free = freeMaskRow(V, 0, -1);
  const prompts = Array.from({ length: B }, () => Array.from({ length: 16 }, () => rng.int(V)));
  const nNew = Math.min(a['new-tokens'], cfg.maxSeq - 16);
  const sample = () => sampleResponses(p, cfg, prompts, { temperature: 1, maxTokens: nNew, eos: -1, freeRow: free, rng, allowed: () => null });
  await sample();
  t = now();
  await sample();
  const sampleMs = now() - t;
  const gflops = await matmulGflops();
  const ratio = a['opid-steps'] > 0 ? await opidRatio(a['opid-steps'], backend) : null;
  const r = {
    event: 'bench', backend, model: a.model, params: countParams(cfg), seq: T, batch: B, vocab: V,
    trainStepMs: trainMs, trainTokensPerSecond: (B * T) / (trainMs / 1000),
    sampleTokensPerSecond: (B * nNew) / (sampleMs / 1000), matmulGflops: gflops,
    ...(ratio ? { grpoStepMs: ratio.grpo, opidStepMs: ratio.opid, opidOverGrpo: ratio.opid / ratio.grpo } : {}),
  };
  if (a.json) process.stdout.write(JSON.stringify(r) + '\n');
  else process.stdout.write(`${a.model} on ${backend}: train ${r.trainTokensPerSecond.toFixed(0)} tok/s (${trainMs.toFixed(0)} ms/step, B=${B}, T=${T}), sample ${r.sampleTokensPerSecond.toFixed(0)} tok/s, matmul ${gflops.toFixed(1)} GFLOP/s` +
    (ratio ? `; OPID step ${ratio.opid.toFixed(0)} ms vs GRPO ${ratio.grpo.toFixed(0)} ms (×${(ratio.opid / ratio.grpo).toFixed(2)})` : '') + '\n');
}

main().catch((e) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
