/**
 * `npm run bench -- --model small --seq 128 --batch 32 --backend cpu|wasm|webgpu [--steps 10] [--wasm-matmul
 * simd|stock] [--wasm-decode fused|ops] [--json]`. Prints one JSON line: `trainTokensPerSecond` (forward + backward +
 * Adam on random tokens, next-token cross-entropy over all positions with a vocabulary of 1024 — the same work as a
 * PyTorch peer of the bench model),
 * `sampleTokensPerSecond` (KV-cached generation, batch × new tokens / s) and the backend's own `matmulGflops`
 * (a 512×512 by 512×512 float32 matmul) measured in the same process: the best of 5 timed repeats of 10 products
 * after 2 untimed ones, with `matmulGflopsMedian` and every repeat in `matmulGflopsRuns`; `trainShareOfMatmul` (the
 * printed "= N% of the matmul") divides training's GFLOP/s by the best repeat, the speed the backend shows it
 * can reach in this process (on cores shared with other jobs single repeats vary by 2×); and `opidOverGrpo`, the ratio
 * of the mean wall time of an OPID training step to a GRPO step (same seed and settings); `kvCacheSpeedup` (KV-cached
 * sampling against recomputing the whole prefix for every new token, at 128 tokens of context); `envSteps` (the mean
 * wall time of a GRPO step with the page's defaults on `--env`/`--preset` — the default env and its default preset
 * unless named; nano from the base, B 8 × G 8, H 3 — and where it goes,
 * phase by phase, with numTensors after each step); with `--peer torch`, the PyTorch peer's training tokens/s for the
 * same model, batch and sequence (scripts/peer_torch.py) and the ratio. On webgpu also dispatches, read-backs and
 * uploads per training step and per sampled token position, GPU bytes after the bench and after each env step
 * (src/core/backend/gpu-stats.ts), with `--gpu-pool` bounding tfjs' pool of freed GPU buffers
 * (src/core/backend/buffer-pool.ts). `agenticOpd`: the mean wall time of an Agentic-OPD distillation step next to a
 * GRPO step's (`--env`/`--preset`, nano from the base, B 4 × G 4; the teacher pool is made in this process from
 * `--agentic-steps` GRPO checkpoints; src/core/bench/agentic.ts). Speed is measured here, never in tests.
 */
import { spawnSync } from 'node:child_process';
import { loadBaseFiles } from './base';
import { getEnvSpec } from '../src/core/envs/registry';
import { ENV_FLAG, PRESET_FLAG, presetFor } from './env-flags';
import { buildTokenizer } from '../src/core/model/policy';
import { exitOnClosedStdout } from './files';
import { parseArgs, usage, UsageError, USAGE_EXIT_CODE, type ParsedArgs } from './args';
import { setupBackend, NODE_BACKENDS } from './backend';
import { modelConfig, MODEL_SIZES } from '../src/core/model/config';
import { train } from '../src/core/train/trainer';
import { CLI_BENCH_SIZE, runBench, type BenchResult, type BenchSize } from '../src/core/bench/workloads';
import { installGpuStats } from '../src/core/backend/gpu-stats';
import { boundFreePool } from '../src/core/backend/buffer-pool';
import { setWasmMatMulEnabled } from '../src/core/backend/wasm/kernels';
import { setWasmDecodeEnabled } from '../src/core/model/decode-wasm';
import { agenticOpdBench, type AgenticOpdBench } from '../src/core/bench/agentic';

exitOnClosedStdout();

const SPEC = {
  env: ENV_FLAG,
  preset: PRESET_FLAG,
  model: { type: 'string', help: 'model size', default: 'small', choices: MODEL_SIZES },
  seq: { type: 'int', help: 'sequence length T', default: 128, min: 2, max: 512 },
  batch: { type: 'int', help: 'batch size B', default: 32, min: 1, max: 1024 },
  vocab: { type: 'int', help: 'vocabulary size', default: 1024, min: 32, max: 65536 },
  steps: { type: 'int', help: 'timed training steps', default: 10, min: 1, max: 1000 },
  warmup: { type: 'int', help: 'untimed warm-up steps', default: 2, min: 0, max: 100 },
  'opid-steps': {
    type: 'int',
    help: 'training steps timed for the OPID/GRPO step-time ratio (--env/--preset, nano, B 4, G 4; 0 = skip)',
    default: 3,
    min: 0,
    max: 100,
  },
  'matmul-repeats': {
    type: 'int',
    help:
      "timed repeats of the backend's 512² matmul (10 products each, after 2 untimed); matmulGflops " +
      'and training\'s share of it ("= N% of the matmul") use the best repeat, matmulGflopsMedian is ' +
      'the median',
    default: 5,
    min: 1,
    max: 100,
  },
  'new-tokens': {
    type: 'int',
    help: 'tokens generated per row in the sampling benchmark',
    default: 32,
    min: 1,
    max: 256,
  },
  'env-steps': {
    type: 'int',
    help:
      "GRPO steps with the page's defaults on --env/--preset timed phase by phase (nano from the base, B 8 × G 8, " +
      'H 3; 0 = skip)',
    default: 2,
    min: 0,
    max: 100,
  },
  'agentic-steps': {
    type: 'int',
    help:
      "steps timed for Agentic-OPD's distillation step next to a GRPO step (--env/--preset, nano from " +
      'the base, B 4, G 4; the teacher pool is made from that many GRPO checkpoints in this process, ' +
      'at least 2; 0 = skip)',
    default: 3,
    min: 0,
    max: 100,
  },
  peer: {
    type: 'string',
    help: 'also run the PyTorch peer (scripts/peer_torch.py) with the same model, batch and sequence: torch',
    choices: ['none', 'torch'],
    default: 'none',
  },
  backend: { type: 'string', help: 'tfjs backend', default: 'wasm', choices: NODE_BACKENDS },
  'wasm-matmul': {
    type: 'string',
    help:
      'wasm: batched and transposed matMuls on the SIMD kernel (simd, ' +
      "src/core/backend/wasm/kernels.ts) or tfjs' own scalar loop (stock), to compare the two",
    choices: ['simd', 'stock'],
    default: 'simd',
  },
  'wasm-decode': {
    type: 'string',
    help:
      'wasm: KV-cached sampling with the fused decoding step (fused, src/core/model/decode-wasm.ts) ' +
      'or the composed ops of transformer.ts (ops), to compare the two; the same tokens either way',
    choices: ['fused', 'ops'],
    default: 'fused',
  },
  'gpu-pool': {
    type: 'int',
    help: "webgpu: bound on tfjs' pool of freed GPU buffers (MiB; -1 = unbounded, tfjs' own behaviour)",
    default: 256,
    min: -1,
    max: 1048576,
  },
  json: { type: 'boolean', help: 'print one JSON line' },
  help: { type: 'boolean', help: 'show this help' },
} as const;

/** Mean step wall time (ms) of `steps` GRPO and OPID steps from the same fresh nano policy (B 4, G 4). */
async function opidRatio(a: BenchArgs, backend: string): Promise<{ grpo: number; opid: number }> {
  const steps = a['opid-steps'];
  const out = { grpo: 0, opid: 0 };
  for (const algo of ['grpo', 'opid'] as const) {
    let sum = 0;
    for await (const e of train(
      {
        algo,
        init: 'scratch',
        model: 'nano',
        env: a.env,
        preset: a.preset,
        steps,
        tasksPerStep: 4,
        groupSize: 4,
        miniBatches: 4,
        evalEvery: 0,
        seed: 1,
      },
      { backend },
    ))
      if (e.event === 'step') sum += e.stepMs;
    out[algo] = sum / steps;
  }
  return out;
}

/** Agentic-OPD's distillation step next to a GRPO step (src/core/bench/agentic.ts), from the env's base policy. */
async function agenticBench(a: BenchArgs, backend: string): Promise<Awaited<ReturnType<typeof agenticOpdBench>>> {
  const spec = getEnvSpec(a.env);
  const base = await loadBaseFiles(spec, a.preset, buildTokenizer(spec));
  const steps = Math.max(2, a['agentic-steps']);
  return agenticOpdBench({ backend, initWeights: base.bytes, steps, env: a.env, preset: a.preset });
}

/**
 * Per env step on webgpu: dispatches, read-backs and uploads (from one step event to the next) and the GPU bytes
 * after it.
 */
interface EnvStepGpu {
  dispatches: number[];
  readbacks: number[];
  uploads: number[];
  gpuBytesAllocated: number[];
  gpuBytesInUse: number[];
  pipelines: number[];
}

/**
 * Mean wall time (ms) and phase split of `steps` GRPO steps with the page's defaults; numTensors after each step and,
 * on webgpu, the GPU counters and bytes of each step (the first step's counts include loading the policy).
 */
async function envSteps(
  a: BenchArgs,
  backend: string,
): Promise<{ stepMs: number; phaseMs: Record<string, number>; numTensors: number[]; gpu?: EnvStepGpu }> {
  const steps = a['env-steps'];
  const spec = getEnvSpec(a.env);
  const base = await loadBaseFiles(spec, a.preset, buildTokenizer(spec));
  let sum = 0;
  const phase: Record<string, number> = {},
    nt: number[] = [];
  const stats = installGpuStats();
  const gpu: EnvStepGpu = {
    dispatches: [],
    readbacks: [],
    uploads: [],
    gpuBytesAllocated: [],
    gpuBytesInUse: [],
    pipelines: [],
  };
  try {
    for await (const e of train(
      { env: a.env, preset: a.preset, steps, evalEvery: 0, seed: 1 },
      { backend, initWeights: base.bytes, profile: true },
    )) {
      if (e.event !== 'step') continue;
      sum += e.stepMs;
      nt.push(e.numTensors);
      for (const [k, v] of Object.entries(e.phaseMs ?? {})) phase[k] = (phase[k] ?? 0) + v / steps;
      if (!stats) continue;
      const c = stats.counters(),
        m = stats.memory();
      gpu.dispatches.push(c.dispatches);
      gpu.readbacks.push(c.readbacks);
      gpu.uploads.push(c.uploads);
      gpu.gpuBytesAllocated.push(m.bytesAllocated);
      gpu.gpuBytesInUse.push(m.bytesInUse);
      gpu.pipelines.push(m.pipelines);
      stats.reset();
    }
  } finally {
    stats?.uninstall();
  }
  return { stepMs: sum / steps, phaseMs: phase, numTensors: nt, ...(stats ? { gpu } : {}) };
}

/** Runs scripts/peer_torch.py with the bench's config; its JSON line, or why it could not run (with the fix). */
function torchPeer(
  cfg: { dModel: number; nLayers: number; nHeads: number },
  a: { vocab: number; seq: number; batch: number; steps: number },
): { trainTokensPerSecond: number; torch: string } | { error: string } {
  const py = ['/usr/bin/python3', 'python3'].find(
    (x) => spawnSync(x, ['-c', 'import torch'], { encoding: 'utf8' }).status === 0,
  );
  if (!py)
    return {
      error:
        'no python3 with torch found; install it with: apt-get install -y python3-torch ' +
        'libopenblas0-pthread (Debian), or pip install torch',
    };
  const r = spawnSync(
    py,
    [
      'scripts/peer_torch.py',
      '--vocab',
      String(a.vocab),
      '--d',
      String(cfg.dModel),
      '--layers',
      String(cfg.nLayers),
      '--heads',
      String(cfg.nHeads),
      '--seq',
      String(a.seq),
      '--batch',
      String(a.batch),
      '--steps',
      String(a.steps),
    ],
    { encoding: 'utf8', timeout: 1_800_000 },
  );
  if (r.status !== 0)
    return { error: `scripts/peer_torch.py exited ${r.status}: ${(r.stderr ?? '').trim().split('\n').pop()}` };
  try {
    const j = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
    return { trainTokensPerSecond: Number(j.trainTokensPerSecond), torch: String(j.torch) };
  } catch {
    return { error: 'scripts/peer_torch.py printed no JSON line' };
  }
}

/** The parsed flags, the preset resolved (the env's default when not given). */
type BenchArgs = Omit<ParsedArgs<typeof SPEC>, 'preset'> & { preset: string };

/** What one call measured: the core bench and the optional ones (null when skipped). */
interface Measured {
  core: BenchResult;
  ratio: { grpo: number; opid: number } | null;
  envSteps: Awaited<ReturnType<typeof envSteps>> | null;
  peer: ReturnType<typeof torchPeer> | null;
  agentic: AgenticOpdBench | null;
}

/** Parse: the flags (a usage error exits 2 with the usage); null once --help is printed. */
function parseBenchArgs(argv: string[]): BenchArgs | null {
  let a;
  try {
    a = parseArgs(argv, SPEC);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`bench: ${e.message}\n${usage('npm run bench --', SPEC)}\n`);
      process.exit(USAGE_EXIT_CODE);
    }
    throw e;
  }
  if (a.help) {
    process.stdout.write(usage('npm run bench --', SPEC) + '\n');
    return null;
  }
  try {
    return { ...a, preset: presetFor(getEnvSpec(a.env), a.preset) };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`bench: ${e.message}\n`);
    process.exit(USAGE_EXIT_CODE);
  }
}

/** Resolve: the backend set up, with webgpu's buffer-pool bound and wasm's kernels as the flags choose. */
async function setupBenchBackend(a: BenchArgs): Promise<string> {
  const backend = await setupBackend(a.backend);
  if (backend === 'webgpu') boundFreePool(a['gpu-pool'] < 0 ? null : a['gpu-pool'] * 1024 * 1024);
  if (a['wasm-matmul'] === 'stock') setWasmMatMulEnabled(false);
  if (a['wasm-decode'] === 'ops') setWasmDecodeEnabled(false);
  return backend;
}

/** Run: the core bench, then the OPID/GRPO ratio, the env steps, the PyTorch peer and Agentic-OPD's step. */
async function runBenches(a: BenchArgs, backend: string): Promise<Measured> {
  const size: BenchSize = {
    ...CLI_BENCH_SIZE,
    model: a.model,
    seq: a.seq,
    batch: a.batch,
    vocab: a.vocab,
    steps: a.steps,
    warmup: a.warmup,
    newTokens: a['new-tokens'],
    matmulRepeats: a['matmul-repeats'],
  };
  const core = await runBench(size);
  const cfg = modelConfig(a.model, a.vocab);
  const ratio = a['opid-steps'] > 0 ? await opidRatio(a, backend) : null;
  const steps = a['env-steps'] > 0 ? await envSteps(a, backend) : null;
  const peer = a.peer === 'torch' ? torchPeer(cfg, a) : null;
  const agentic = a['agentic-steps'] > 0 ? await agenticBench(a, backend) : null;
  return { core, ratio, envSteps: steps, peer, agentic };
}

/** Training tokens/s of this backend over the PyTorch peer's. */
function peerRatio(a: BenchArgs, core: BenchResult, peerTokensPerSecond: number): number {
  return (a.batch * a.seq) / (core.trainStepMs / 1000) / peerTokensPerSecond;
}

/** The JSON line's object: the core bench, the backend, and each optional bench that ran. */
function benchRecord(a: BenchArgs, backend: string, m: Measured) {
  const { core, ratio, envSteps, peer, agentic } = m;
  return {
    event: 'bench',
    ...core,
    backend,
    kvCacheSpeedup: core.kvCacheSpeedup ?? NaN,
    ...(envSteps ? { envSteps: { env: a.env, preset: a.preset, ...envSteps } } : {}),
    ...(peer
      ? {
          peer:
            'error' in peer ? { error: peer.error } : { ...peer, ratio: peerRatio(a, core, peer.trainTokensPerSecond) },
        }
      : {}),
    ...(ratio ? { grpoStepMs: ratio.grpo, opidStepMs: ratio.opid, opidOverGrpo: ratio.opid / ratio.grpo } : {}),
    ...(agentic ? { agenticOpd: agentic } : {}),
  };
}

/** One labelled line of the readable summary. */
const line = (label: string, text: string) => `  ${label.padEnd(10)} ${text}\n`;

/** Print without --json: the readable summary, one labelled line per bench that ran, then those skipped. */
function printSummary(a: BenchArgs, backend: string, m: Measured): void {
  const { core, ratio, envSteps, peer, agentic } = m;
  const opid = ratio
    ? line(
        'OPID/GRPO',
        `OPID step ${ratio.opid.toFixed(0)} ms vs GRPO ${ratio.grpo.toFixed(0)} ms ` +
          `(×${(ratio.opid / ratio.grpo).toFixed(2)})`,
      )
    : '';
  process.stdout.write(
    coreLines(a, backend, core) +
      opid +
      (envSteps ? envStepLine(a, envSteps) : '') +
      webgpuLine(core) +
      (agentic ? agenticLine(agentic) : '') +
      (peer
        ? line(
            'PyTorch',
            'error' in peer
              ? peer.error
              : `${peer.torch} CPU: ${peer.trainTokensPerSecond.toFixed(0)} tok/s; this backend / PyTorch ` +
                  `= ${peerRatio(a, core, peer.trainTokensPerSecond).toFixed(2)}`,
          )
        : '') +
      skippedLine(a, peer),
  );
}

/** The model, backend and shape, then the training, matmul and sampling lines. */
function coreLines(a: BenchArgs, backend: string, core: BenchResult): string {
  const trainMs = core.trainStepMs,
    gflops = core.matmulGflops,
    trainGflops = core.trainGflops,
    kv = core.kvCacheSpeedup ?? NaN;
  return (
    `${a.model} on ${backend}, B ${a.batch} × T ${a.seq}\n` +
    line(
      'training',
      `${core.trainTokensPerSecond.toFixed(0)} tok/s (${trainMs.toFixed(0)} ms/step), ${trainGflops.toFixed(1)} ` +
        `GFLOP/s = ${((100 * trainGflops) / gflops).toFixed(0)}% of the matmul`,
    ) +
    line(
      'matmul',
      `${gflops.toFixed(1)} GFLOP/s (${CLI_BENCH_SIZE.matmulN}², best of ${core.matmulGflopsRuns.length} ` +
        `repeats; median ${core.matmulGflopsMedian.toFixed(1)})`,
    ) +
    line(
      'sampling',
      `${core.sampleTokensPerSecond.toFixed(0)} tok/s; KV cache ×${kv.toFixed(1)} over recomputing at 128 ` +
        `tokens of context`,
    )
  );
}

/** The env's GRPO step: its time, where it goes, numTensors, and on webgpu its counters and GPU bytes. */
function envStepLine(a: BenchArgs, s: NonNullable<Measured['envSteps']>): string {
  const phases = Object.entries(s.phaseMs)
    .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`)
    .join(', ');
  const gpu = s.gpu;
  return line(
    'env step',
    `GRPO step with the page's defaults on ${a.env}/${a.preset} ${(s.stepMs / 1000).toFixed(1)} s — ${phases}; ` +
      `numTensors ${s.numTensors.join(' → ')}` +
      (gpu
        ? `; dispatches ${gpu.dispatches.join(', ')}, read-backs ${gpu.readbacks.join(', ')}, ` +
          `GPU MB allocated ${gpu.gpuBytesAllocated.map((x) => (x / 1e6).toFixed(1)).join(' → ')}`
        : ''),
  );
}

/** On webgpu: dispatches and read-backs per training step and per sampled token, and the GPU bytes; else ''. */
function webgpuLine(r: BenchResult): string {
  if (r.dispatchesPerTrainStep === undefined) return '';
  return line(
    'webgpu',
    `${r.dispatchesPerTrainStep.toFixed(0)} dispatches and ${r.readbacksPerTrainStep?.toFixed(1)} ` +
      `read-backs per training step, ${r.dispatchesPerSampledToken?.toFixed(1)} dispatches and ` +
      `${r.readbacksPerSampledToken?.toFixed(2)} read-backs per sampled token position; GPU MB ` +
      `${((r.gpuBytes ?? 0) / 1e6).toFixed(1)} in use, ${((r.gpuBytesAllocated ?? 0) / 1e6).toFixed(1)} allocated`,
  );
}

/** Agentic-OPD's distillation step next to GRPO's, with the stage's size, student, teachers and LAD share. */
function agenticLine(agentic: AgenticOpdBench): string {
  return line(
    'agentic',
    `Agentic-OPD distillation step ${agentic.agenticOpdStepMs.toFixed(0)} ms vs GRPO ` +
      `${agentic.grpoStepMs.toFixed(0)} ms (×${agentic.overGrpo.toFixed(2)}; B ${agentic.tasksPerStep} × ` +
      `G ${agentic.groupSize}, student step ${agentic.studentStep}, teachers ${agentic.teachers.join(', ')}, ` +
      `mean LAD share ${(100 * agentic.ladShareMean).toFixed(1)}%)`,
  );
}

/** The benches skipped (a flag at 0, no --peer torch) and how to run them; '' when none. */
function skippedLine(a: BenchArgs, peer: Measured['peer']): string {
  const skipped = (
    [
      ['opid-steps', 'OPID/GRPO step ratio'],
      ['env-steps', 'env step'],
      ['agentic-steps', 'Agentic-OPD step'],
    ] as const
  )
    .filter(([k]) => a[k] === 0)
    .map(([k, what]) => `${what} (--${k} 0)`);
  if (!peer) skipped.push('PyTorch peer (add --peer torch)');
  return skipped.length ? line('skipped', skipped.join(', ')) : '';
}

async function main(): Promise<void> {
  const a = parseBenchArgs(process.argv.slice(2));
  if (!a) return;
  const backend = await setupBenchBackend(a);
  const m = await runBenches(a, backend);
  if (a.json) return void process.stdout.write(JSON.stringify(benchRecord(a, backend, m)) + '\n');
  printSummary(a, backend, m);
}

main().catch((e) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
