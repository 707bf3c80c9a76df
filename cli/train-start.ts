/**
 * Where `npm run train` starts (cli/train.ts): Agentic-OPD's `--from-run` source (its student and teachers), the
 * start decision (a `--resume` checkpoint, the source run's student, the shipped base policy, a fresh seeded init or
 * an `--init` file) and, once the backend is up, the check of the weights it starts from. Every refusal exits 2
 * through `fail`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { envVersionWarning, type EnvVersionWarning } from './env-version';
import { readFromRun, SHARED_WITH_RUN, type FromRun } from './from-run';
import { algorithmTraits, distillationAlgorithm } from '../src/core/algorithm-catalog';
import { buildTokenizer, disposePolicy, loadPolicy } from '../src/core/model/policy';
import { canGrow, growWeights, type GrownFrom } from '../src/core/model/grow';
import { Rng } from '../src/core/rng';
import { getEnvSpec } from '../src/core/envs/registry';
import { basePolicyWords, loadBaseFiles, shownPath } from './base';
import { parseRunConfig, type RunConfig } from '../src/core/run/config';
import { readRun } from './rundir';
import { runFileAsWeights } from './packfile';
import { notAWeightsFile, notSafetensors, otherEnvWeights, type WeightsFlagOptions } from './weightsfile';
import { fail, flagOf } from './train-flags';
import { resumeFromRun, type Resume } from './train-rundir';
import { startKind } from '../src/core/pretrain/base';

/** train --init's words besides a weights path; a folder given to it is more likely a run to --resume. */
const INIT_FLAG: WeightsFlagOptions = { others: ['base', 'scratch'], resume: true };

/** What `--from-run` settles: the config (with the source run's shared settings), `init` and the source run. */
export interface Source {
  config: RunConfig;
  init: string | undefined;
  /** The source run of a distillation stage (also on --resume); null for an algorithm without a teacher pool. */
  fromRun: FromRun | null;
}

/** The flags and state `resolveFromRun` reads. */
export interface SourceFlags {
  fromRunDir: string | undefined;
  partial: Record<string, unknown>;
  config: RunConfig;
  init: string | undefined;
  resume: Resume | null;
  runDir: string | undefined;
}

/**
 * `--from-run SRC`, the distillation stage of the algorithm with a teacher pool: refused with another algorithm,
 * required (without --init) by that one; on --resume the recorded source is read again (`resumeFromRun`).
 */
export function resolveFromRun(flags: SourceFlags): Source {
  const { fromRunDir, config, init, resume } = flags;
  // The algorithm that distils a run's checkpoints (its teacherPool trait) reads them with --from-run.
  const distil = distillationAlgorithm();
  const pooled = algorithmTraits(config.algo).teacherPool;
  if (fromRunDir !== undefined && !pooled)
    fail(`--from-run is the distillation stage of --algo ${distil}; add --algo ${distil} or drop --from-run`);
  let source: Source = { config, init, fromRun: null };
  if (pooled && !resume) {
    if (fromRunDir === undefined)
      fail(
        `--algo ${config.algo} distils from a GRPO run directory: pass --from-run DIR (a run trained with ` +
          '--run-dir DIR --checkpoint-every k --val-tasks n)',
      );
    if (init !== undefined) fail(`--algo ${config.algo} starts from the run's best-validation checkpoint; drop --init`);
    source = readSource(fromRunDir, flags.partial, flags.runDir);
  }
  if (resume && pooled) source = { ...source, fromRun: resumeFromRun(resume, source.config, fromRunDir) };
  return source;
}

/**
 * Read the source run of a new distillation stage: the student and its teachers share the run's environment, model
 * and prompt format (a flag that differs is refused); `init` becomes the student's checkpoint.
 */
function readSource(fromRunDir: string, partial: Record<string, unknown>, runDir: string | undefined): Source {
  let run;
  try {
    run = readRun(fromRunDir);
  } catch (e) {
    fail(`--from-run: ${(e as Error).message}`);
  }
  for (const k of SHARED_WITH_RUN) {
    if (Object.hasOwn(partial, k) && partial[k] !== run.config[k])
      fail(
        `--${flagOf(k).replace(/^--/, '')} ${String(partial[k])} differs from the run's ${String(run.config[k])} ` +
          `(${fromRunDir}/run.json); the student and its teachers keep the run's, so drop the flag`,
      );
    partial[k] = run.config[k];
  }
  let config: RunConfig;
  try {
    config = parseRunConfig(partial);
  } catch (e) {
    fail((e as Error).message);
  }
  const spec = getEnvSpec(config.env);
  let fromRun: FromRun;
  try {
    fromRun = readFromRun(fromRunDir, config, spec, buildTokenizer(spec));
  } catch (e) {
    fail(`--from-run: ${(e as Error).message}`);
  }
  if (runDir !== undefined && !Object.hasOwn(partial, 'valTasks'))
    config = { ...config, valTasks: fromRun.valTasks, valSamples: fromRun.valSamples };
  const init = path.join(fromRunDir, `ckpt-${fromRun.studentStep}.safetensors`);
  return { config, init, fromRun };
}

/** Where training starts; `weights` (with the name a warning gives them) are checked once the backend is up. */
export type Start =
  | { from: 'resume' }
  | { from: 'run' | 'file'; weights: Uint8Array; name: string }
  | { from: 'base' }
  | { from: 'scratch' };

/**
 * The start decision: a --resume checkpoint (weights, reference and optimizer come from it), the source run's
 * student, `--init base` / `scratch` (recorded in the config), an --init weights file (read and its format checked
 * here), else the config's `init`. Returns the config with `init` set.
 */
export function resolveStart(
  config: RunConfig,
  init: string | undefined,
  resume: Resume | null,
  source: { fromRun: FromRun | null; fromRunDir: string | undefined },
): { config: RunConfig; start: Start } {
  const { fromRun, fromRunDir } = source;
  if (resume) return { config, start: { from: 'resume' } };
  if (fromRun) {
    const name = `${fromRunDir}/ckpt-${fromRun.studentStep}.safetensors`;
    return { config, start: { from: 'run', weights: fromRun.studentBytes, name } };
  }
  if (init === 'base' || init === 'scratch') config = { ...config, init };
  const named = init !== undefined && init !== 'base' && init !== 'scratch';
  if (startKind(config.init, named) === 'weights' && init !== undefined) {
    const missing = notAWeightsFile(init, '--init', INIT_FLAG);
    if (missing) fail(missing);
    const weights = new Uint8Array(fs.readFileSync(init));
    const packed = runFileAsWeights(init, weights, '--init') ?? notSafetensors(init, weights, '--init', INIT_FLAG);
    if (packed) fail(packed);
    return { config, start: { from: 'file', weights, name: init } };
  }
  return { config, start: { from: startKind(config.init, false) === 'base' ? 'base' : 'scratch' } };
}

/** The weights training starts from (none for --resume and scratch), an environment-version warning, growth. */
export interface LoadedStart {
  initWeights: Uint8Array | undefined;
  versionWarning: EnvVersionWarning | null;
  /** An --init file of the size the config's model grows from, grown (core/model/grow.ts); run.json records it. */
  grownFrom?: GrownFrom;
}

/**
 * The weights training starts from, once the backend is up: a weights file or the source's student loaded to check
 * it (a usage error naming what is wrong, a vocabulary mismatch included, exits 2; an older environment version only
 * warns), or the shipped base policy, which must be of the config's model size. None for --resume and scratch.
 * An --init file of the size the config's model grows from (nano for nano-deep) is grown: its blocks, then new
 * blocks with zero output projections drawn from the `init` stream of the config's seed (core/model/grow.ts).
 */
export async function loadStart(start: Start, config: RunConfig, init: string | undefined): Promise<LoadedStart> {
  if (start.from === 'run' || start.from === 'file') {
    const tok = buildTokenizer(getEnvSpec(config.env));
    let p;
    try {
      p = loadPolicy(start.weights, tok);
      disposePolicy(p);
    } catch (e) {
      fail(`--init ${init}: ${otherEnvWeights(start.weights, config.env) ?? (e as Error).message}`);
    }
    const versionWarning = envVersionWarning(start.name, p.meta, config.env);
    if (p.size !== config.model && start.from === 'file' && canGrow(p.size, config.model)) {
      const grown = await growWeights(start.weights, tok, config.model, new Rng(config.seed).fork('init'));
      return { initWeights: grown.bytes, versionWarning, grownFrom: grown.grownFrom };
    }
    if (p.size !== config.model)
      fail(`--init ${init} holds a ${p.size} model, not --model ${config.model}; pass --model ${p.size}`);
    return { initWeights: start.weights, versionWarning };
  }
  if (start.from === 'base') return { initWeights: await loadBase(config), versionWarning: null };
  return { initWeights: undefined, versionWarning: null };
}

/**
 * The shipped base policy of the config's env and preset; refused (exit 2) when missing or of another model size
 * (naming its file as the --init that grows it when the config's model grows from its size).
 */
async function loadBase(config: RunConfig): Promise<Uint8Array> {
  const spec = getEnvSpec(config.env);
  try {
    const base = await loadBaseFiles(
      spec,
      config.preset,
      buildTokenizer(spec),
      undefined,
      'pass --init scratch to start from fresh weights',
    );
    if (base.manifest.model !== config.model) {
      // a base of the size the config's model grows from (nano for nano-deep) grows when given as a file
      const grow = canGrow(base.manifest.model, config.model)
        ? `, or --init ${shownPath(base.path)} to grow it into ${config.model}`
        : '';
      fail(
        `--init base: ${basePolicyWords()} for ${config.env}/${config.preset} is a ${base.manifest.model} ` +
          `model; pass --model ${base.manifest.model}, or --init scratch${grow}`,
      );
    }
    return base.bytes;
  } catch (e) {
    fail(`--init base: ${(e as Error).message}`);
  }
}
