/**
 * `npm run bench -- --model small --seq 128 --batch 32 --backend cpu|wasm|webgpu [--steps 10] [--json]`.
 * Prints one JSON line: `trainTokensPerSecond` (forward + backward + Adam on random tokens, next-token
 * cross-entropy over all positions with a vocabulary of 1024 — the same work as a PyTorch peer of the bench model),
 * `sampleTokensPerSecond` (KV-cached generation, batch × new tokens / s) and the backend's own `matmulGflops`
 * (a 512×512 by 512×512 float32 matmul) measured in the same process; and `opidOverGrpo`, the ratio of the mean
 * wall time of an OPID training step to a GRPO step (same seed and settings); `kvCacheSpeedup` (KV-cached sampling
 * against recomputing the whole prefix for every new token, at 128 tokens of context); `household` (the mean wall
 * time of a GRPO step with the page's defaults — nano from the base, B 8 × G 8, H 3 — and where it goes, phase by
 * phase, with numTensors after each step); with `--peer torch`, the PyTorch peer's training tokens/s for the same
 * model, batch and sequence (scripts/peer_torch.py) and the ratio. Speed is measured here, never in tests.
 */
import { spawnSync } from 'node:child_process';
import { loadBaseFiles } from './base';
import { getEnvSpec } from '../src/core/envs/registry';
import { buildTokenizer } from '../src/core/model/policy';
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
  'household-steps': { type: 'int', help: 'GRPO steps with the page\'s defaults timed phase by phase (nano from the base, B 8 × G 8, H 3; 0 = skip)', default: 2, min: 0, max: 100 },
  peer: { type: 'string', help: 'also run the PyTorch peer (scripts/peer_torch.py) with the same model, batch and sequence: torch', choices: ['none', 'torch'], default: 'none' },
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

/** Mean wall time (ms) and phase split of `steps` GRPO steps with the page's defaults; numTensors after each step. */
async function householdSteps(steps: number, backend: string): Promise<{ stepMs: number; phaseMs: Record<string, number>; numTensors: number[] }> {
  const spec = getEnvSpec('household');
  const base = await loadBaseFiles(spec, 'easy', buildTokenizer(spec));
  let sum = 0;
  const phase: Record<string, number> = {}, nt: number[] = [];
  for await (const e of train({ steps, evalEvery: 0, seed: 1 }, { backend, initWeights: base.bytes, profile: true })) {
    if (e.event !== 'step') continue;
    sum += e.stepMs;
    nt.push(e.numTensors);
    for (const [k, v] of Object.entries(e.phaseMs ?? {})) phase[k] = (phase[k] ?? 0) + v / steps;
  }
  return { stepMs: sum / steps, phaseMs: phase, numTensors: nt };
}

/**
 * KV-cached sampling against recomputing the prefix: `n` new tokens for B rows after a 128-token context, (a) with
 * the cache (model/sample.ts) and (b) by a full forward pass over the whole prefix for every new token. Returns b/a.
 */
async function kvCacheSpeedup(p: Parameters<typeof forward>[0], cfg: Parameters<typeof forward>[1], B: number, V: number, rng: Rng, n = 8): Promise<number> {
  const ctx = 128;
  if (ctx + n > cfg.maxSeq) return NaN;
  const prompts = Array.from({ length: B }, () => Array.from({ length: ctx }, () => rng.int(V)));
  const free = freeMaskRow(V, 0, -1);
  const cached = () => sampleResponses(p, cfg, prompts, { temperature: 1, maxTokens: n, eos: -1, freeRow: free, rng, allowed: () => null });
  await cached();
  let t = now();
  await cached();
  const withCache = now() - t;
  const recompute = async () => {
    const rows = prompts.map((x) => [...x]);
    for (let k = 0; k < n; k++) {
      const T = ctx + k;
      const lg = tf.tidy(() => {
        const ids = tf.tensor2d(rows.flat(), [B, T], 'int32');
        const pos = tf.tensor2d(Int32Array.from({ length: B * T }, (_, i) => i % T), [B, T], 'int32');
        const { hidden } = forward(p, cfg, ids, pos);
        return logits(p, tf.reshape(tf.slice(hidden, [0, T - 1, 0], [B, 1, -1]), [B, -1]) as tf.Tensor2D);
      });
      const v = await lg.data();
      lg.dispose();
      rows.forEach((r, i) => r.push(v[i * V] > v[i * V + 1] ? 0 : 1)); // any token: the cost is the same
    }
  };
  await recompute();
  t = now();
  await recompute();
  return (now() - t) / withCache;
}

/** Runs scripts/peer_torch.py with the bench's config; its JSON line, or why it could not run (with the fix). */
function torchPeer(cfg: { dModel: number; nLayers: number; nHeads: number }, a: { vocab: number; seq: number; batch: number; steps: number }): { trainTokensPerSecond: number; torch: string } | { error: string } {
  const py = ['/usr/bin/python3', 'python3'].find((x) => spawnSync(x, ['-c', 'import torch'], { encoding: 'utf8' }).status === 0);
  if (!py) return { error: 'no python3 with torch found; install it with: apt-get install -y python3-torch libopenblas0-pthread (Debian), or pip install torch' };
  const r = spawnSync(py, ['scripts/peer_torch.py', '--vocab', String(a.vocab), '--d', String(cfg.dModel), '--layers', String(cfg.nLayers), '--heads', String(cfg.nHeads),
    '--seq', String(a.seq), '--batch', String(a.batch), '--steps', String(a.steps)], { encoding: 'utf8', timeout: 1_800_000 });
  if (r.status !== 0) return { error: `scripts/peer_torch.py exited ${r.status}: ${(r.stderr ?? '').trim().split('\n').pop()}` };
  try {
    const j = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
    return { trainTokensPerSecond: Number(j.trainTokensPerSecond), torch: String(j.torch) };
  } catch {
    return { error: 'scripts/peer_torch.py printed no JSON line' };
  }
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
  const kv = await kvCacheSpeedup(p, cfg, B, V, rng);
  const ratio = a['opid-steps'] > 0 ? await opidRatio(a['opid-steps'], backend) : null;
  const household = a['household-steps'] > 0 ? await householdSteps(a['household-steps'], backend) : null;
  const peer = a.peer === 'torch' ? torchPeer(cfg, a) : null;
  // Training FLOPs ≈ 6 · params · tokens (forward 2, backward 4 per parameter and token).
  const trainGflops = (6 * countParams(cfg) * B * T) / (trainMs / 1000) / 1e9;
  const r = {
    event: 'bench', backend, model: a.model, params: countParams(cfg), seq: T, batch: B, vocab: V,
    trainStepMs: trainMs, trainTokensPerSecond: (B * T) / (trainMs / 1000),
    sampleTokensPerSecond: (B * nNew) / (sampleMs / 1000), matmulGflops: gflops, trainGflops, trainShareOfMatmul: trainGflops / gflops,
    kvCacheSpeedup: kv,
    ...(household ? { household } : {}),
    ...(peer ? { peer: 'error' in peer ? { error: peer.error } : { ...peer, ratio: (B * T) / (trainMs / 1000) / peer.trainTokensPerSecond } } : {}),
    ...(ratio ? { grpoStepMs: ratio.grpo, opidStepMs: ratio.opid, opidOverGrpo: ratio.opid / ratio.grpo } : {}),
  };
  if (a.json) process.stdout.write(JSON.stringify(r) + '\n');
  else process.stdout.write(`${a.model} on ${backend}: train ${r.trainTokensPerSecond.toFixed(0)} tok/s (${trainMs.toFixed(0)} ms/step, B=${B}, T=${T}), sample ${r.sampleTokensPerSecond.toFixed(0)} tok/s, matmul ${gflops.toFixed(1)} GFLOP/s` +
    ` (training reaches ${(100 * trainGflops / gflops).toFixed(0)}% of it), KV cache ×${kv.toFixed(1)} over recomputing at 128 tokens of context` +
    (ratio ? `; OPID step ${ratio.opid.toFixed(0)} ms vs GRPO ${ratio.grpo.toFixed(0)} ms (×${(ratio.opid / ratio.grpo).toFixed(2)})` : '') + '\n' +
    (household ? `household GRPO step (page defaults): ${(household.stepMs / 1000).toFixed(1)} s — ${Object.entries(household.phaseMs).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(', ')}; numTensors ${household.numTensors.join(' → ')}\n` : '') +
    (peer ? ('error' in peer ? `PyTorch peer: ${peer.error}\n` : `PyTorch ${peer.torch} CPU: ${peer.trainTokensPerSecond.toFixed(0)} tok/s; this backend / PyTorch = ${((B * T) / (trainMs / 1000) / peer.trainTokensPerSecond).toFixed(2)}\n`) : ''));
}

main().catch((e) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
