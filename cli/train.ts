/**
 * `npm run train -- [--env ENV] [--preset P] --algo grpo --model nano --steps N --tasks B --group G
 *  --seed S --backend cpu|wasm [--json]`. With --json: one JSON object per line (step and eval events;
 * see src/core/train/events.ts). Without: a progress line and a readable summary. Bad input: a message naming
 * the flag and the accepted values, exit code 2.
 *
 * The run-setting flags are derived from the schema (src/core/run/config.ts): every field whose `.meta()` names a
 * `flag` is a flag here, typed by the field's JSON Schema (integer, number, boolean, string with its enum), listed in
 * `--help` under its group with label, accepted values, default, unit, symbol and recommended value. Adding a
 * setting with a `flag` adds the flag; nothing in cli/ changes. `--init` also takes a weights path and `--backend`
 * only the Node backends (default wasm).
 *
 * A run whose loss, gradient norm or weights turn NaN or ±Infinity stops at that step (src/core/train/finite.ts): the
 * error, the settings to change and the checkpoint to continue from go to stderr (with --json the error event is a
 * line too), --save gets the last finite weights, and the exit code is 1.
 *
 * `--init PATH` with weights made for another environment version prints a warning on stderr (and, with --json,
 * a `{"event":"warning","kind":"env-version",…}` line before the start event); another vocabulary is refused.
 *
 * `--run-dir DIR` writes the run record (src/core/run/record.ts): run.json, events.jsonl, ckpt-<k>.safetensors +
 * ckpt-<k>.state every `--checkpoint-every` steps and at the last step, val.json with `--val-tasks n`. `--resume DIR`
 * continues such a run from its latest checkpoint with the recorded config: run-setting flags must match it, except
 * `--steps`, which may extend the run; events are appended to its events.jsonl.
 *
 * `--algo agentic-opd --from-run SRC` is Agentic-OPD's distillation stage from a GRPO run directory (cli/from-run.ts):
 * a SRC that cannot be distilled exits 2 before anything is written (a student that already solves every val task
 * some checkpoint solves included: nothing to distil). With `--run-dir` its run.json records SRC and the sha256 of
 * the files read from it; `--resume` rebuilds the same teacher pool and refuses a SRC that changed since.
 */
import type { EnvVersionWarning } from './env-version';
import {
  doneLine,
  evalLine,
  nonFiniteLines,
  phaseLine,
  progress,
  startLine,
  startOrigin,
  teachersLine,
  validationLine,
} from './train-print';
import { sha256, type FromRun } from './from-run';
import { unionStartWarning } from '../src/core/algorithms/agentic-opd';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, UsageError, shellLine } from './args';
import { savePolicy } from '../src/core/model/policy';
import { BestEval } from '../src/core/train/best';
import { getEnvSpec } from '../src/core/envs/registry';
import type { PolicyHandle } from '../src/core/model/policy';
import { setupBackend, type NodeBackend } from './backend';
import { exitOnClosedStdout, writeAtomic } from './files';
import { EvalPool } from './eval-pool';
import { ConfigError, parseRunConfig, type RunConfig } from '../src/core/run/config';
import type { ErrorEvent, EvalEvent, TrainEvent } from '../src/core/train/events';
import { weightsFinite } from '../src/core/train/finite';
import { train } from '../src/core/train/trainer';
import { checkpointFile } from '../src/core/run/record';
import { gapNoiseNote } from '../src/core/run/coverage-noise';
import {
  FIELD,
  SPEC,
  acceptedOf,
  analyzerFlagIssues,
  configFieldsOf,
  fail,
  flagOf,
  helpText,
  ignoredFlagIssues,
  rangeIssue,
} from './train-flags';
import {
  RunRecorder,
  makeRunDir,
  nextTurn,
  prepareResume,
  prepareRunDir,
  skippedWarning,
  type Resume,
} from './train-rundir';
import { loadStart, resolveFromRun, resolveStart, type Start } from './train-start';
import type { GrownFrom } from '../src/core/model/grow';
import { algorithmTraits } from '../src/core/algorithm-catalog';

exitOnClosedStdout();

/** Checks before training that `--save` names a file we can create: its folder exists and is writable. */
function checkSavePath(p: string, flag: string): void {
  if (p.trim() === '') fail(`${flag} needs a file path, e.g. ${flag} runs/policy.safetensors`);
  const dir = path.dirname(path.resolve(p));
  if ((fs.existsSync(p) && fs.statSync(p).isDirectory()) || /[/\\]$/.test(p))
    fail(`${flag}: "${p}" is a folder; give a file path inside it, e.g. ${path.join(p, 'policy.safetensors')}`);
  if (!fs.existsSync(dir)) fail(`${flag}: folder "${dir}" does not exist; create it first`);
  if (!fs.statSync(dir).isDirectory()) fail(`${flag}: "${dir}" is a file, not a folder; give a path inside a folder`);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    fail(`${flag}: folder "${dir}" is not writable`);
  }
}

/**
 * Write trained weights to `p`; if that fails after training (a path that passed the checks but cannot be written,
 * a full disk), write them to the system's temporary folder instead and say where, so a run's weights are never lost.
 * The process then exits 1 at its end.
 */
function saveOrRescue(p: string, flag: string, bytes: Uint8Array): void {
  try {
    writeAtomic(p, bytes);
  } catch (e) {
    const rescue = path.join(
      os.tmpdir(),
      `opd-weights-${process.pid}-${path.basename(p).replace(/[^\w.-]/g, '_') || 'policy.safetensors'}`,
    );
    fs.writeFileSync(rescue, bytes);
    process.stderr.write(
      `train: ${flag} ${p} could not be written (${(e as Error).message}); the weights are saved at ${rescue} ` +
        `instead\n`,
    );
    process.exitCode = 1;
  }
}

/** One JSON line on stdout. */
function out(o: object): void {
  process.stdout.write(JSON.stringify(o) + '\n');
}

/** The parsed command line: the flags, the run-config fields they set and the config those make. */
interface Parsed {
  args: Record<string, unknown>;
  partial: Record<string, unknown>;
  config: RunConfig;
}

/** Parse: the flags and the run config they make (exit 2 naming what is wrong); null once --help is printed. */
function parseTrainArgs(argv: string[]): Parsed | null {
  const args = parseFlags(argv);
  if (args.help) {
    process.stdout.write(helpText() + '\n');
    return null;
  }
  const partial = configFieldsOf(args);
  return { args, partial, config: parseConfig(partial, argv) };
}

/** The flags; a bad one exits 2 with the schema's accepted values where the flag sets a run-config field. */
function parseFlags(argv: string[]): Record<string, unknown> {
  try {
    return parseArgs(argv, SPEC);
  } catch (e) {
    if (e instanceof UsageError) {
      const key = e.flag !== undefined && e.flag !== 'backend' ? FIELD[e.flag] : undefined;
      const f = e.flag !== undefined ? SPEC[e.flag] : undefined;
      // Where the flag sets a run-config field, name the schema's accepted values too (e.g. "a number in [0, 10]");
      // a value outside a flag's choices is worded as in every CLI (choiceError: the choices and the nearest one).
      const msg = !key
        ? e.message
        : e.value === undefined
          ? e.message.replace(/ needs a value \(.*\)$/, ` needs a value (${acceptedOf(e.flag!)})`)
          : f?.type === 'string' && f.choices
            ? e.message
            : `${e.message} (accepted: ${acceptedOf(e.flag!)})`;
      fail(`${msg}\nrun npm run train -- --help for every flag, its accepted values and default`);
    }
    throw e;
  }
}

/** The run config of the flags' fields; a refused one exits 2 naming the flags that set the fields. */
function parseConfig(partial: Record<string, unknown>, argv: string[]): RunConfig {
  try {
    return parseRunConfig(partial);
  } catch (e) {
    if (e instanceof ConfigError) {
      // Config names in a message become the flags that set them (as the page shows its labels).
      const flagged = (m: string) => m.replace(/\b[a-z]+[A-Z][A-Za-z]*\b/g, (w) => flagOf(w));
      // A number outside its range: the flag, the range, the value given and the fix, as for every other flag.
      const lines = e.issues.map(
        (i) => rangeIssue(i.field, partial[i.field], argv) ?? `${flagOf(i.field)}: ${flagged(i.message)}`,
      );
      fail([...new Set(lines)].join('\n'));
    }
    throw e;
  }
}

/** A run once every check has passed: its config, where it starts and where its results go. */
interface Plan {
  args: Record<string, unknown>;
  config: RunConfig;
  /** --init as given, the resumed run's, or the source run's student checkpoint. */
  init: string | undefined;
  json: boolean;
  runDir: string | undefined;
  resume: Resume | null;
  fromRunDir: string | undefined;
  fromRun: FromRun | null;
  save: string | undefined;
  saveBest: string | undefined;
  start: Start;
  /** An --init file grown into the config's model (train-start.ts `loadStart`), set once the start is loaded. */
  grownFrom?: GrownFrom;
}

/**
 * Resolve: --resume or --run-dir, settings of another algorithm, --from-run, the save paths and where training
 * starts, in that order; the first refusal exits 2 before anything is written.
 */
function resolveRun({ args, partial, config }: Parsed, argv: string[]): Plan {
  const save = args.save as string | undefined;
  const saveBest = args['save-best'] as string | undefined;
  let init = args.init as string | undefined;
  const runDir = args['run-dir'] as string | undefined;
  const resumeDir = args.resume as string | undefined;
  let resume: Resume | null = null;
  if (resumeDir !== undefined) {
    resume = prepareResume(resumeDir, partial, init, runDir, args.force === true);
    config = resume.config;
    init = resume.run.config.init;
  } else if (runDir !== undefined) prepareRunDir(runDir);
  else if (config.valTasks > 0)
    fail('--val-tasks needs --run-dir DIR (validation results go to DIR/val.json at each checkpoint)');
  // A setting of another algorithm (--opd-topk with --algo grpo) or analyzer (--analyzer-url with heuristic) would be
  // ignored without a word: refuse it.
  const ignored = [...ignoredFlagIssues(argv, config.algo), ...analyzerFlagIssues(argv, config, resume !== null)];
  if (ignored.length) fail(ignored.join('\n'));
  const fromRunDir = args['from-run'] as string | undefined;
  const source = resolveFromRun({ fromRunDir, partial, config, init, resume, runDir });
  checkSaveFlags(save, saveBest, source.config);
  const { fromRun } = source;
  const decided = resolveStart(source.config, source.init, resume, { fromRun, fromRunDir });
  const json = args.json === true;
  return { args, ...decided, init: source.init, json, runDir, resume, fromRunDir, fromRun, save, saveBest };
}

/** --save and --save-best: writable file paths, two different ones; --save-best needs evaluations. */
function checkSaveFlags(save: string | undefined, saveBest: string | undefined, config: RunConfig): void {
  if (save !== undefined) checkSavePath(save, '--save');
  if (saveBest !== undefined) {
    checkSavePath(saveBest, '--save-best');
    if ((config.evalEvery ?? 0) === 0) fail('--save-best needs evaluations: set --eval-every to a step count > 0');
    if (save !== undefined && path.resolve(save) === path.resolve(saveBest))
      fail('--save and --save-best name the same file; give them different paths');
  }
}

/** What the event loop keeps besides the plan: the live policy, the best evaluation, the saved weights' metadata. */
interface Session {
  plan: Plan;
  backend: string;
  /** The run directory written (--run-dir, or the resumed one), and its recorder. */
  dir: string | undefined;
  record: RunRecorder | null;
  policy: PolicyHandle | undefined;
  best: BestEval;
  meta: Record<string, string>;
  envVersions: Record<string, string>;
}

/**
 * Run: the run directory made (or continued), the trainer started from `initWeights`, and each event recorded,
 * printed and, at the end and at each better evaluation, the weights saved.
 */
async function runTraining(
  plan: Plan,
  backend: string,
  initWeights: Uint8Array | undefined,
  versionWarning: EnvVersionWarning | null,
  command: string,
): Promise<void> {
  const { config, resume, fromRun, args } = plan;
  const analyzerApiKey = process.env.OPD_ANALYZER_API_KEY || undefined;
  const best = new BestEval();
  if (resume?.best) Object.assign(best, resume.best);
  // historyTurns lets `eval --policy PATH` prompt the policy as it was trained.
  const meta = { seed: String(config.seed), command, historyTurns: String(config.historyTurns) };
  const envVersions = { [config.env]: getEnvSpec(config.env).version };
  if (versionWarning) printVersionWarning(versionWarning, plan.json);
  const s: Session = {
    plan,
    backend,
    ...openRecord(plan, backend, command, initWeights),
    policy: undefined,
    best,
    meta,
    envVersions,
  };
  const evalThreads = args['eval-threads'] as number;
  const pool = evalThreads > 0 && config.evalEvery > 0 ? new EvalPool(evalThreads, backend as NodeBackend) : null;
  const stream = train(config, {
    backend,
    initWeights,
    analyzerApiKey,
    profile: args.profile === true,
    onPolicy: (p) => (s.policy = p),
    evaluator: pool?.evaluate,
    // --save-best saves the live weights at an eval event: no step may run ahead of it
    evalOverlap: plan.saveBest === undefined,
    checkpoints: s.record !== null,
    resume: resume ? { weights: resume.weights, state: resume.state } : undefined,
    algorithmInit: fromRun ? { teacherPool: fromRun.pool, studentSolved: fromRun.studentSolved } : undefined,
  });
  if (fromRun) printTeachers(fromRun, plan);
  for await (const raw of stream) {
    await takeEvent(s.record ? s.record.take(raw) : raw, s);
    await nextTurn(); // SIGINT/SIGTERM handlers (the run directory's lock, cli/runlock.ts) run between events
  }
  fromRun?.pool.dispose();
  await pool?.close();
}

/**
 * The run directory to write (made now for a new --run-dir) and its recorder; none without one. `initWeights`: the
 * bytes a fresh run begins from (their sha256 goes into run.json).
 */
function openRecord(
  plan: Plan,
  backend: string,
  command: string,
  initWeights: Uint8Array | undefined,
): Pick<Session, 'dir' | 'record'> {
  const { resume, runDir, init } = plan;
  const dir = resume?.dir ?? runDir;
  if (!resume && runDir !== undefined) makeRunDir(runDir, plan.args.force === true);
  const record =
    dir !== undefined
      ? new RunRecorder(
          dir,
          plan.config,
          command,
          backend,
          init !== 'base' && init !== 'scratch' ? (init ?? null) : null,
          resume,
          plan.fromRun?.record ?? null,
          plan.grownFrom ?? null,
          initWeights && !resume ? sha256(initWeights) : null,
        )
      : null;
  return { dir, record };
}

/**
 * One event: the weights saved at `done` (--save), the event printed, the weights saved at a better eval; a run
 * stopped by a non-finite value is said on stderr and exits 1.
 */
async function takeEvent(ev: TrainEvent, s: Session): Promise<void> {
  const { save, saveBest, config } = s.plan;
  if (ev.event === 'done' && save && s.policy)
    saveOrRescue(save, '--save', await savePolicy(s.policy, config.model, s.envVersions, s.meta));
  if (s.plan.json) printJsonEvent(ev, s.record);
  else printEvent(ev, s);
  if (ev.event === 'eval' && saveBest && s.policy && s.best.offer(ev)) await saveBestEval(ev, saveBest, s);
  if (ev.event === 'error') await stopOnNonFinite(ev, s);
}

/**
 * A run stopped by a non-finite value (the trainer's `error` event; the live weights are those from before the
 * stopped step): --save gets them only when every one is finite, the error and how to continue go to stderr, and the
 * process exits 1.
 */
async function stopOnNonFinite(ev: ErrorEvent, s: Session): Promise<void> {
  const { save, config } = s.plan;
  const saved = save !== undefined && s.policy !== undefined && (await weightsFinite(s.policy.params));
  if (saved) saveOrRescue(save, '--save', await savePolicy(s.policy!, config.model, s.envVersions, s.meta));
  process.stderr.write(nonFiniteLines(ev, { dir: s.dir, save, saved }).join('\n') + '\n');
  process.exitCode = 1;
}

/** --save-best: the live weights of a better evaluation saved, with its step and score, and said. */
async function saveBestEval(ev: EvalEvent, saveBest: string, s: Session): Promise<void> {
  const { best } = s;
  const splits = JSON.stringify(best.splits);
  saveOrRescue(
    saveBest,
    '--save-best',
    await savePolicy(s.policy!, s.plan.config.model, s.envVersions, {
      ...s.meta,
      bestStep: String(ev.step),
      bestScore: String(best.score),
      bestSplits: splits,
    }),
  );
  if (s.plan.json) out({ event: 'best', step: ev.step, score: best.score, splits: best.splits, path: saveBest });
  else
    process.stdout.write(
      `best so far @ step ${ev.step}: mean test success ${(100 * best.score).toFixed(1)}%, saved to ${saveBest}\n`,
    );
}

/** Print: an --init file made for another environment version, on stderr (and as a JSON line with --json). */
function printVersionWarning(w: EnvVersionWarning, json: boolean): void {
  process.stderr.write(`train: warning: ${w.message}\n`);
  if (json) out({ event: 'warning', kind: 'env-version', weights: w.weights, made: w.made, current: w.current });
}

/** Print: the distillation stage's student and teachers, and a union teacher choice that starts without a teacher. */
function printTeachers(fromRun: FromRun, plan: Plan): void {
  const { json, config, fromRunDir } = plan;
  if (json)
    out({
      event: 'teachers',
      student: fromRun.studentStep,
      studentSolved: fromRun.studentSolved.size,
      teachers: fromRun.pool.ids,
      from: fromRunDir ?? fromRun.record.dir,
      unionGap: fromRun.gap.observed,
      noiseGap: fromRun.gap.noise.expectedGap,
    });
  else process.stdout.write(`${teachersLine(fromRun)}\n${gapNoiseNote(fromRun.gap.observed, fromRun.gap.noise)}\n`);
  const unionWarning = config.teacherSelect === 'union' ? unionStartWarning(fromRun.pool) : null;
  if (unionWarning) {
    process.stderr.write(`train: warning: ${unionWarning}\n`);
    if (json) out({ event: 'warning', kind: 'union-no-teacher', message: unionWarning });
  }
}

/**
 * Print with --json: step, eval, start, done, validation and error events, and a checkpoint as its events.jsonl line.
 */
function printJsonEvent(ev: TrainEvent, record: RunRecorder | null): void {
  if (
    ev.event === 'step' ||
    ev.event === 'eval' ||
    ev.event === 'start' ||
    ev.event === 'done' ||
    ev.event === 'validation' ||
    ev.event === 'error'
  )
    out(ev);
  else if (ev.event === 'checkpoint') out(record?.lineOf(ev) ?? { event: 'checkpoint', step: ev.step });
}

/** Print without --json: the line of a start, step (and its time split), eval, validation, checkpoint or done. */
function printEvent(ev: TrainEvent, s: Session): void {
  const { config, args } = s.plan;
  if (ev.event === 'start')
    process.stdout.write(startLine(ev, config, s.backend, startOrigin(s.plan.start, s.plan.grownFrom)) + '\n');
  else if (ev.event === 'step') {
    process.stdout.write(
      progress(
        ev,
        config.steps,
        config.targetKl > 0 ? config.miniBatches * config.ppoEpochs : 0,
        algorithmTraits(config.algo).charts,
      ) + '\n',
    );
    if (ev.phaseMs) process.stdout.write(phaseLine(ev.phaseMs, ev.stepMs) + '\n');
  } else if (ev.event === 'eval')
    process.stdout.write(evalLine(ev) + (args.profile ? `  (${(ev.evalMs / 1000).toFixed(1)} s)` : '') + '\n');
  else if (ev.event === 'validation') process.stdout.write(validationLine(ev) + '\n');
  else if (ev.event === 'checkpoint')
    process.stdout.write(`checkpoint @ step ${ev.step}: ${s.dir}/${checkpointFile(ev.step)}\n`);
  else if (ev.event === 'done') process.stdout.write(doneLine(ev, config) + '\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const parsed = parseTrainArgs(argv);
  if (!parsed) return;
  const plan = resolveRun(parsed, argv);
  const backend = await setupBackend(plan.config.backend as NodeBackend);
  const skipped = plan.resume ? skippedWarning(plan.resume) : null;
  if (skipped) process.stderr.write(`train: warning: ${skipped}\n`);
  const { initWeights, versionWarning, grownFrom } = await loadStart(plan.start, plan.config, plan.init);
  const command = 'npm run train -- ' + shellLine(argv);
  await runTraining({ ...plan, grownFrom }, backend, initWeights, versionWarning, command);
}
main().catch((e) => {
  process.stderr.write(`train: ${e instanceof Error ? (process.env.OPD_DEBUG ? e.stack : e.message) : String(e)}\n`);
  process.exit(1);
});
