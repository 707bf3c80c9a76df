/**
 * `npm run eval -- [--env ENV] --split test-unseen --episodes 60 --policy expert|random|base|PATH [--preset
 * P] [--first-task K] [--hints none|episode|step|both|correct] [--temperature 0.4] [--seed 1] [--backend
 * cpu|wasm] [--json]`.
 * `--policy base` is the shipped base policy (public/base/, checked against its manifest). `--hints` injects correct
 * hints from the expert oracle (hint-following measurement): the episode skill of the expert's successful
 * trajectory of the same task, a step skill with the expert's action at every step (`step`, also `correct`), or both.
 * Plays tasks k..k+episodes−1 of the split (k = `--first-task`, default 0). Where the env reports numbers besides the
 * reward on an episode's last step (`StepResult.info`, e.g. a QA env's `em`, `f1`, `subEm`), the text output adds
 * their means over the split and a column each in the per-type table, and --json adds `metrics` to each episode line,
 * to the summary and to each of its `byTaskType` entries. With --json one line per episode, then
 * `{"event":"summary","successRate":…,"byTaskType":{…}}` last (with the settings that make two outputs comparable
 * episode by episode: env, preset, split, policy, hints, historyTurns, seed, temperature, decoding, firstTask; its
 * task types, as the text table's rows, in
 * the env's order: registry.ts `inEnvOrder`). The summary carries `envVersions` (this code's {env:
 * version}) and `envVersionWarning` (null, or
 * `{kind:"env-version",weights,made,current}` when `--policy PATH` holds weights made for another environment version;
 * the same warning is printed on stderr). Weights of another vocabulary are refused (exit 2).
 * `--split test-seen,test-unseen` evaluates several splits, each exactly as a run with that one split would (its own
 * `Rng(seed)`), at once in `--eval-threads` worker threads (cli/eval-pool.ts; by default 2 on a machine with ≥ 2
 * cores when each split needs episodes × max turns ≥ EVAL_THREADS_MIN_WORK, else none): the splits' results are
 * printed in the order given, with --json each split's episodes then its summary. `--env` takes every registered
 * environment and `--preset` its presets (default: the env's own, cli/env-flags.ts). Flags that are run settings
 * (--temperature, --decoding, --history, --seed) take their accepted values from the run-config schema
 * (src/core/run/config.ts).
 */
import { envVersionWarning, type EnvVersionWarning } from './env-version';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { alignColumns } from './text-table';
import { exitOnClosedStdout } from './files';
import { didYouMean, parseArgs, usage, UsageError, USAGE_EXIT_CODE, type ParsedArgs } from './args';
import { setupBackend, NODE_BACKENDS } from './backend';
import { getEnvSpec, inEnvOrder } from '../src/core/envs/registry';
import { ENV_FLAG, PRESET_FLAG, presetFor } from './env-flags';
import { SPLITS, type EnvSpec, type Split } from '../src/core/envs/types';
import { Rng } from '../src/core/rng';
import { buildTokenizer, loadPolicy } from '../src/core/model/policy';
import { DECODINGS } from '../src/core/rollout/runner';
import { summarize, type SplitEval } from '../src/core/rollout/evaluate';
import { DEFAULT_CONFIG, describeField, fieldSchema, type RunConfigKey } from '../src/core/run/config';
import type { Trajectory } from '../src/core/rollout/types';
import { HINT_MODES } from '../src/core/envs/expert-hints';
import { loadBaseFiles } from './base';
import { evalJobs } from './eval-jobs';
import { runFileAsWeights } from './packfile';
import { notAWeightsFile, notSafetensors, otherEnvWeights, type WeightsFlagOptions } from './weightsfile';

/** --policy's words besides a weights path. */
const POLICY_FLAG: WeightsFlagOptions = { others: ['expert', 'random', 'base'] };
import { defaultEvalThreads, EVAL_THREADS_MIN_WORK, evalThreadsFor, EvalPool } from './eval-pool';
import { playScripted } from '../src/core/rollout/scripted';
import { randomAction } from '../src/core/pretrain/demos';
import { episodeSummary, runEvalJob, type EpisodeSummary, type EvalJob } from '../src/core/rollout/eval-job';
import { counted } from '../src/core/count-text';

/** The schema's range of a numeric run-config field, as FlagTable bounds. */
const range = (key: RunConfigKey) => ({ min: fieldSchema(key).minimum, max: fieldSchema(key).maximum });

const SPEC = {
  env: ENV_FLAG,
  preset: PRESET_FLAG,
  split: {
    type: 'string',
    help:
      `task split, or several separated by commas (each played as if alone, in parallel with ` +
      `--eval-threads): ${SPLITS.join(', ')}`,
    default: 'test-seen',
  },
  'eval-threads': {
    type: 'int',
    help:
      `worker threads that play the splits of a model policy at once (same numbers as one thread); 0 ` +
      `= all in this thread; default ${defaultEvalThreads()} here (2 when the machine has ≥ 2 ` +
      `cores, else 0) when several splits each need episodes × the preset's max turns ≥ ${EVAL_THREADS_MIN_WORK} ` +
      `episode-turns, else 0 (starting a worker costs more than a shorter evaluation saves)`,
    min: 0,
    max: 4,
  },
  episodes: {
    type: 'int',
    help: 'episodes (tasks k..k+n-1 of the split, k = --first-task)',
    default: 60,
    min: 1,
    max: 100000,
  },
  'first-task': {
    type: 'int',
    help:
      'index k of the first task; to score weights chosen by train --save-best on tasks it did not ' +
      "see, k ≥ train's --eval-episodes",
    default: 0,
    min: 0,
    max: 1000000,
  },
  policy: {
    type: 'string',
    help:
      'expert | random (uniform over the admissible actions; an open form such as search[ completed with 1–4 ' +
      'random words of the task line and ]) | base (the shipped base policy) | path to a .safetensors weights file',
    default: 'expert',
  },
  hints: {
    type: 'string',
    help:
      "hints for a model policy, written by the env's expert (the hinted success rate): episode = its plan, " +
      'step = its next action at every step, both; correct = step',
    default: 'none',
    choices: [...HINT_MODES, 'correct'],
  },
  temperature: {
    type: 'float',
    help: "sampling temperature for a model policy (train's --eval-temperature)",
    default: DEFAULT_CONFIG.evalTemperature,
    ...range('evalTemperature'),
  },
  decoding: {
    type: 'string',
    help: 'decoding mode for a model policy',
    default: DEFAULT_CONFIG.decoding,
    choices: DECODINGS,
  },
  history: {
    type: 'int',
    help:
      `H: past turns in the prompt (default: the base manifest's, or the H recorded in a weights file ` +
      `by train, else ${DEFAULT_CONFIG.historyTurns})`,
    ...range('historyTurns'),
  },
  seed: { type: 'int', help: 'seed of the sampling generator', default: 1, ...range('seed') },
  backend: { type: 'string', help: 'tfjs backend', default: 'wasm', choices: NODE_BACKENDS },
  json: { type: 'boolean', help: 'print JSON lines' },
  help: { type: 'boolean', help: 'show this help' },
} as const;

function fail(msg: string, code = USAGE_EXIT_CODE): never {
  process.stderr.write(`eval: ${msg}\n`);
  process.exit(code);
}

/**
 * Play with a non-model policy that reads the env (expert) or draws uniformly from admissible actions (random); one
 * episode per task first..first+n−1 (rollout/scripted.ts). The random policy completes an open form it draws (a
 * free-text prefix such as `search[`, envs/types.ts `isOpenAction`) with 1–4 words of the task line drawn at random
 * and `]`, as pretraining's noisy demonstrator does (`randomAction`, src/core/pretrain/demos.ts): the open form alone
 * is no action and would score 0 by construction.
 */
export function playPolicy(
  spec: EnvSpec,
  preset: string,
  split: Split,
  first: number,
  n: number,
  kind: 'expert' | 'random',
  rng: Rng,
): Trajectory[] {
  const refs = Array.from({ length: n }, (_, i) => ({ split, index: first + i }));
  return playScripted(spec, preset, refs, (env, _ref, start) => {
    if (kind === 'expert') {
      const expert = spec.expert(env);
      return () => expert.act();
    }
    return () => randomAction(env.admissibleActions(), start.task, rng);
  });
}

/** The parsed flags, the preset resolved (the env's default when not given). */
type EvalArgs = Omit<ParsedArgs<typeof SPEC>, 'preset'> & { preset: string };

/** One split's evaluation: its summary and its episodes. */
interface SplitResult {
  split: Split;
  eval: SplitEval;
  episodes: EpisodeSummary[];
}

/** What the evaluation of every split gives: the results, the H a model policy was prompted with, a warning. */
interface Results {
  results: SplitResult[];
  historyUsed: number | null;
  versionWarning: EnvVersionWarning | null;
}

/** The flags only a model policy reads: the expert and the random policy take no hints and sample nothing. */
const MODEL_FLAGS = ['hints', 'temperature', 'decoding', 'history'] as const;

/**
 * Exits 2 when a model policy's flag is given with `--policy expert|random` (it would be ignored), naming it;
 * `--hints none` is what they play anyway.
 */
function refuseModelFlags(argv: readonly string[], a: { policy: string; hints: string }): void {
  const given = MODEL_FLAGS.filter(
    (f) => argv.some((x) => x === `--${f}` || x.startsWith(`--${f}=`)) && !(f === 'hints' && a.hints === 'none'),
  );
  if (given.length > 0)
    fail(
      `${given.map((f) => `--${f}`).join(', ')} ${given.length === 1 ? 'applies' : 'apply'} to a model policy ` +
        `(--policy base or a weights file); the ${a.policy} policy takes no hints and samples nothing: leave ` +
        `${given.length === 1 ? 'it' : 'them'} out`,
    );
}

/** Parse: the flags (a usage error exits 2 with the usage); null once --help is printed. */
function parseEvalArgs(argv: string[]): EvalArgs | null {
  let a;
  try {
    a = parseArgs(argv, SPEC);
  } catch (e) {
    if (e instanceof UsageError) fail(`${e.message}\n${usage('npm run eval --', SPEC)}`);
    throw e;
  }
  if (a.help) {
    process.stdout.write(usage('npm run eval --', SPEC) + '\n');
    return null;
  }
  if (a.policy === 'expert' || a.policy === 'random') refuseModelFlags(argv, a);
  try {
    return { ...a, preset: presetFor(getEnvSpec(a.env), a.preset) };
  } catch (e) {
    if (e instanceof UsageError) fail(e.message);
    throw e;
  }
}

/** Resolve: the environment, its preset and the splits (each known, none given twice); exits 2 otherwise. */
function resolveSplits(a: EvalArgs): { spec: EnvSpec; splits: Split[] } {
  const spec = getEnvSpec(a.env);
  const splits = a.split.split(',').map((x) => x.trim());
  for (const x of splits)
    if (!(SPLITS as readonly string[]).includes(x))
      fail(
        `--split: unknown split "${x}" (accepted: ${SPLITS.join(', ')}, or several separated by commas)` +
          didYouMean(x, SPLITS),
      );
  if (new Set(splits).size !== splits.length) fail(`--split names a split twice ("${a.split}"); give each once`);
  return { spec, splits: splits as Split[] };
}

/** Run: the expert or the random policy on each split (no model, no backend). */
function runScripted(a: EvalArgs, spec: EnvSpec, splits: Split[]): Results {
  const results = splits.map((split) => {
    const trajs = playPolicy(
      spec,
      a.preset,
      split,
      a['first-task'],
      a.episodes,
      a.policy as 'expert' | 'random',
      new Rng(a.seed),
    );
    return {
      split,
      eval: summarize(trajs),
      episodes: trajs.map(episodeSummary),
    };
  });
  return { results, historyUsed: null, versionWarning: null };
}

/**
 * Run: a model policy (the shipped base, or a weights file checked and loaded; another environment version warns)
 * on each split, one job per split, in worker threads when more than one is worth it.
 */
async function runModel(a: EvalArgs, spec: EnvSpec, splits: Split[]): Promise<Results> {
  await setupBackend(a.backend);
  const tok = buildTokenizer(spec);
  const { bytes, history: defaultHistory } = await policyBytes(a, spec, tok);
  let policy;
  try {
    policy = loadPolicy(bytes, tok);
  } catch (e) {
    fail(`--policy ${a.policy}: ${otherEnvWeights(bytes, spec.name) ?? (e as Error).message}`);
  }
  let versionWarning: EnvVersionWarning | null = null;
  if (a.policy !== 'base') {
    versionWarning = envVersionWarning(a.policy, policy.meta, spec.name);
    if (versionWarning) process.stderr.write(`eval: warning: ${versionWarning.message}\n`);
  }
  const history = historyOf(a, policy.meta, defaultHistory);
  const jobs = evalJobs(a, spec, splits, history);
  const threads = Math.min(
    a['eval-threads'] ?? evalThreadsFor(jobs.length, a.episodes, spec.create(a.preset).maxSteps),
    jobs.length,
  );
  return { results: await runJobs(jobs, threads, a, policy, spec, bytes), historyUsed: history, versionWarning };
}

/**
 * The policy's weights: the shipped base policy (with its manifest's H) or a weights file (its format checked);
 * the H to prompt with unless the weights record one. Exits 2 naming what is wrong.
 */
async function policyBytes(
  a: EvalArgs,
  spec: EnvSpec,
  tok: ReturnType<typeof buildTokenizer>,
): Promise<{ bytes: Uint8Array; history: number }> {
  let bytes: Uint8Array;
  let history = a.history ?? 3;
  if (a.policy === 'base') {
    try {
      const base = await loadBaseFiles(
        spec,
        a.preset,
        tok,
        undefined,
        'score another policy: --policy expert, random or a .safetensors file',
      );
      bytes = base.bytes;
      history = a.history ?? Number(base.manifest.pretrain.historyTurns ?? 3);
    } catch (e) {
      fail(`--policy base: ${(e as Error).message}`);
    }
  } else {
    const missing = notAWeightsFile(a.policy, '--policy', POLICY_FLAG);
    if (missing) fail(missing);
    bytes = new Uint8Array(fs.readFileSync(a.policy));
    const packed =
      runFileAsWeights(a.policy, bytes, '--policy') ?? notSafetensors(a.policy, bytes, '--policy', POLICY_FLAG);
    if (packed) fail(packed);
  }
  return { bytes, history };
}

/** H: --history, else the H recorded by `train --save/--save-best` in a weights file (checked), else `history`. */
function historyOf(a: EvalArgs, meta: Record<string, string>, history: number): number {
  // Weights written by `train --save/--save-best` record the H they were trained with.
  if (a.history === undefined && a.policy !== 'base' && Object.hasOwn(meta, 'historyTurns')) {
    // Untrusted metadata: the H the weights were trained with must be a setting the schema accepts.
    const h = meta.historyTurns,
      r = fieldSchema('historyTurns');
    if (!/^\d+$/.test(h) || Number(h) < (r.minimum ?? 0) || Number(h) > (r.maximum ?? 30))
      fail(
        `--policy ${a.policy}: its metadata historyTurns "${h.slice(0, 20)}" is not ` +
          `${describeField('historyTurns')}; the file is corrupt — pass --history to choose H, or re-save the ` +
          `weights with train --save`,
      );
    return Number(h);
  }
  return history;
}

/** The jobs' results in their order: in `threads` worker threads when more than one, else one after another here. */
async function runJobs(
  jobs: EvalJob[],
  threads: number,
  a: EvalArgs,
  policy: ReturnType<typeof loadPolicy>,
  spec: EnvSpec,
  bytes: Uint8Array,
): Promise<SplitResult[]> {
  if (threads > 1) {
    const pool = new EvalPool(threads, a.backend);
    try {
      return (await Promise.all(jobs.map((j) => pool.evaluate(j, bytes)))).map((r, i) => ({
        split: jobs[i].split,
        ...r,
      }));
    } finally {
      await pool.close();
    }
  }
  const results: SplitResult[] = [];
  for (const j of jobs) results.push({ split: j.split, ...(await runEvalJob(policy, spec, j)) });
  return results;
}

/** Print: per split, with --json its episodes then its summary line, else the success line and one per task type. */
function printResults(a: EvalArgs, spec: EnvSpec, { results, historyUsed, versionWarning }: Results): void {
  for (const { split, eval: s, episodes } of results) {
    if (a.json) {
      for (const t of episodes) process.stdout.write(JSON.stringify({ event: 'episode', split, ...t }) + '\n');
      process.stdout.write(
        JSON.stringify({
          event: 'summary',
          env: a.env,
          preset: a.preset,
          split,
          policy: a.policy,
          hints: a.hints,
          historyTurns: historyUsed,
          seed: a.seed,
          temperature: a.temperature,
          decoding: a.decoding,
          firstTask: a['first-task'],
          episodes: s.episodes,
          successRate: s.successRate,
          ...(s.metrics ? { metrics: s.metrics } : {}),
          byTaskType: Object.fromEntries(inEnvOrder(Object.keys(s.byTaskType)).map((t) => [t, s.byTaskType[t]])),
          envVersions: { [spec.name]: spec.version },
          envVersionWarning: versionWarning && {
            kind: 'env-version',
            weights: versionWarning.weights,
            made: versionWarning.made,
            current: versionWarning.current,
          },
        }) + '\n',
      );
    } else printText(a, split, s);
  }
}

/** A metric mean as the text output writes it: three decimals (`0.667`); `-` when the type's episodes lack it. */
const metricText = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(3));

/**
 * Print without --json: a split's success over its episodes (the task range); where the env reports metrics besides
 * the reward (SplitEval.metrics, e.g. `em`, `f1`, `subEm`), their means over the episodes on the next line
 * (`  mean em 0.500, f1 0.667, subEm 0.500`); then a table of success per task type (`task type  success  episodes`,
 * and a column per metric with the type's mean), the types in their env's order (registry.ts `inEnvOrder`: ALFWorld's
 * pick, look, clean, heat, cool, pick2), not in the order the episodes met them, each column padded to its widest
 * cell (cli/text-table.ts) so that the header and rows line up whatever the type names' lengths.
 */
function printText(a: EvalArgs, split: Split, s: SplitEval): void {
  const first = a['first-task'];
  process.stdout.write(
    `${a.policy}${a.hints !== 'none' ? ` (hints ${a.hints})` : ''} on ${a.env}/${a.preset} ${split}: ` +
      `success ${(100 * s.successRate).toFixed(1)}% of ${counted(s.episodes, 'episode')} ` +
      `(tasks ${first}..${first + s.episodes - 1})\n`,
  );
  const names = Object.keys(s.metrics ?? {});
  if (names.length)
    process.stdout.write(`  mean ${names.map((k) => `${k} ${metricText(s.metrics![k])}`).join(', ')}\n`);
  const types = inEnvOrder(Object.keys(s.byTaskType)).map((t) => [t, s.byTaskType[t]] as const);
  if (types.length === 0) return;
  const rows = [
    ['task type', 'success', 'episodes', ...names],
    ...types.map(([k, v]) => [
      k,
      `${(100 * v.successRate).toFixed(1)}%`,
      String(v.episodes),
      ...names.map((m) => metricText(v.metrics?.[m])),
    ]),
  ];
  const right = [false, true, true, ...names.map(() => true)];
  for (const line of alignColumns(rows, right)) process.stdout.write(`  ${line}\n`);
}

async function main(): Promise<void> {
  const a = parseEvalArgs(process.argv.slice(2));
  if (!a) return;
  const { spec, splits } = resolveSplits(a);
  const results =
    a.policy === 'expert' || a.policy === 'random' ? runScripted(a, spec, splits) : await runModel(a, spec, splits);
  printResults(a, spec, results);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  exitOnClosedStdout();
  main().catch((e) => fail(e instanceof Error ? e.message : String(e), 1));
}
