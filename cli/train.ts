/**
 * `npm run train -- --env household [--preset easy] --algo grpo --model nano --steps N --tasks B --group G
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
import { envVersionWarning, type EnvVersionWarning } from './env-version';
import { evalLine, phaseLine, progress } from './train-print';
import { checkFromRunUnchanged, readFromRun, SHARED_WITH_RUN, type FromRun, type FromRunRecord } from './from-run';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, UsageError, USAGE_EXIT_CODE, type FlagTable } from './args';
import { buildTokenizer, disposePolicy, loadPolicy, savePolicy } from '../src/core/model/policy';
import { BestEval } from '../src/core/train/best';
import { getEnvSpec } from '../src/core/envs/registry';
import type { PolicyHandle } from '../src/core/model/policy';
import { setupBackend, NODE_BACKENDS, type NodeBackend } from './backend';
import { loadBaseFiles } from './base';
import { exitOnClosedStdout, writeAtomic } from './files';
import { defaultEvalThreads, EvalPool } from './eval-pool';
import {
  ConfigError, DEFAULT_CONFIG, FIELD_GROUPS, RUN_CONFIG_KEYS, describeField, fieldMeta, fieldSchema, fieldsOfGroup, isRunConfigKey, parseRunConfig,
  type RunConfig, type RunConfigKey,
} from '../src/core/run/config';
import { train } from '../src/core/train/trainer';
import type { EvalEvent, StepEvent, TrainEvent } from '../src/core/train/events';
import { decodeTrainState } from '../src/core/train/checkpoint';
import { RECORD_VERSION, RUN_FORMAT, addValidation, checkpointFile, emptyValRecord, stateFile, type RunRecord, type ValRecord } from '../src/core/run/record';
import { EventLog, RunDirError, cutEventsAt, listCheckpoints, readEvents, readRun, readVal, writeCheckpoint, writeRun, writeVal } from './rundir';

exitOnClosedStdout();

/** Flags of the run-config fields: one per schema field whose metadata names a `flag` (src/core/run/config.ts). */
const CONFIG_FLAGS: FlagTable = {};
/** RunConfig field of each such flag. */
const FIELD: Record<string, RunConfigKey> = {};
for (const key of RUN_CONFIG_KEYS) {
  const { flag, help } = fieldMeta(key);
  if (!flag) continue;
  FIELD[flag] = key;
  const j = fieldSchema(key);
  // Ranges are left to the schema, whose messages name the range (`--lr: Too small … (accepted: a number in …)`).
  if (key === 'init') CONFIG_FLAGS[flag] = { type: 'string', help: `${help} (base | scratch | PATH)` };
  else if (key === 'backend') CONFIG_FLAGS[flag] = { type: 'string', help, default: 'wasm', choices: NODE_BACKENDS };
  else if (j.type === 'integer') CONFIG_FLAGS[flag] = { type: 'int', help };
  else if (j.type === 'number') CONFIG_FLAGS[flag] = { type: 'float', help };
  else if (j.type === 'boolean') CONFIG_FLAGS[flag] = { type: 'boolean', help, default: j.default === true };
  else CONFIG_FLAGS[flag] = { type: 'string', help, ...(j.enum ? { choices: j.enum } : {}) };
}

/** Flags of `train` that are not run settings. */
const OTHER_FLAGS = {
  save: { type: 'string', help: 'write the final weights (safetensors) to this path' },
  'save-best': { type: 'string', help: 'write the weights of the best evaluation so far (mean success over test-seen and test-unseen; the step-0 evaluation counts; ties keep the earlier) to this path, at each new best; needs --eval-every > 0' },
  json: { type: 'boolean', help: 'print one JSON object per line' },
  'run-dir': { type: 'string', help: 'write the run record into this new (or empty) folder: run.json, events.jsonl, checkpoints ckpt-<k>.safetensors + ckpt-<k>.state every --checkpoint-every steps and at the last step, val.json with --val-tasks (format: src/core/run/record.ts)' },
  'from-run': { type: 'string', help: 'with --algo agentic-opd: the GRPO run directory to distil from (its best-validation checkpoint is the student, its other checkpoints the teachers; needs ≥ 2 checkpoints and val.json from --val-tasks). Exit 2, nothing written, when a checkpoint is missing, corrupt or of another model, vocabulary or environment version, or when the student already solves every val task some checkpoint solves (nothing to distil). --resume of the stage refuses a source whose files changed (sha256 in run.json)' },
  resume: { type: 'string', help: 'continue the run in this run directory from its latest checkpoint with its recorded config (run-setting flags must match it; --steps may extend the run); appends to its events.jsonl' },
  'eval-threads': { type: 'int', help: `worker threads that run evaluations (test-seen and test-unseen at once, beside the next training step; the same numbers as in the training thread); 0 = evaluate in the training thread; default ${defaultEvalThreads()} here (2 when the machine has ≥ 2 cores, else 0)`, default: defaultEvalThreads(), min: 0, max: 2 },
  profile: { type: 'boolean', help: 'report where each step\'s time goes (sampling, environment, old/ref scoring, algorithm, update, KL guard; evaluation in its own line); with --json, step events carry phaseMs' },
  help: { type: 'boolean', help: 'show this help' },
} as const satisfies FlagTable;

const SPEC: FlagTable = { ...CONFIG_FLAGS, ...OTHER_FLAGS };

/** What a flag accepts, in words: the schema's description, or the CLI's own for --init and --backend. */
function acceptedOf(flag: string): string {
  const key = FIELD[flag];
  if (key === 'init') return 'base (the shipped base policy), scratch (a fresh seeded init) or the path of a .safetensors file written by --save';
  if (key === 'backend') return `one of ${NODE_BACKENDS.join(', ')}`;
  return describeField(key);
}

/** `--help`: the run settings grouped as in the page (schema order), then the other flags. */
function helpText(): string {
  const w = Math.max(...Object.keys(SPEC).map((f) => f.length)) + 2;
  const pad = ' '.repeat(w + 4);
  const lines = ['usage: npm run train -- [flags]', '', 'Every run setting (src/core/run/config.ts): label — meaning; accepted values, default, unit, symbol, recommended value.'];
  for (const group of FIELD_GROUPS) {
    const keys = fieldsOfGroup(group).filter((k) => fieldMeta(k).flag);
    if (!keys.length) continue;
    // The internal group's flagged settings are the run record's (the page keeps no run directory).
    lines.push('', group === 'internal' ? 'run record (with --run-dir):' : `${group}:`);
    for (const key of keys) {
      const m = fieldMeta(key);
      const flag = m.flag!;
      const d = flag === 'backend' ? 'wasm' : DEFAULT_CONFIG[key];
      const facts = [`accepted: ${acceptedOf(flag)}`, `default ${d === '' ? '"" (empty)' : String(d)}`];
      if (m.unit) facts.push(`unit: ${m.unit}`);
      if (m.symbol) facts.push(`symbol: ${m.symbol}`);
      if (m.recommended) facts.push(`recommended: ${m.recommended}`);
      lines.push(`  --${flag.padEnd(w)}${m.label} — ${m.help}`, `${pad}${facts.join('; ')}`);
    }
  }
  lines.push('', 'output:');
  for (const [flag, f] of Object.entries(OTHER_FLAGS)) lines.push(`  --${flag.padEnd(w)}${f.help}`);
  return lines.join('\n');
}

/** The flag of a run-config field (`--tasks` for tasksPerStep), or the field name when it has none. */
function flagOf(field: string): string {
  const flag = isRunConfigKey(field) ? fieldMeta(field).flag : undefined;
  return flag ? `--${flag}` : field;
}

/** Checks before training that `--save` names a file we can create: its folder exists and is writable. */
function checkSavePath(p: string, flag: string): void {
  if (p.trim() === '') fail(`${flag} needs a file path, e.g. ${flag} runs/policy.safetensors`);
  const dir = path.dirname(path.resolve(p));
  if ((fs.existsSync(p) && fs.statSync(p).isDirectory()) || /[/\\]$/.test(p)) fail(`${flag}: "${p}" is a folder; give a file path inside it, e.g. ${path.join(p, 'policy.safetensors')}`);
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
    const rescue = path.join(os.tmpdir(), `opd-weights-${process.pid}-${path.basename(p).replace(/[^\w.-]/g, '_') || 'policy.safetensors'}`);
    fs.writeFileSync(rescue, bytes);
    process.stderr.write(`train: ${flag} ${p} could not be written (${(e as Error).message}); the weights are saved at ${rescue} instead\n`);
    process.exitCode = 1;
  }
}

function fail(msg: string): never {
  process.stderr.write(`train: ${msg}\n`);
  process.exit(USAGE_EXIT_CODE);
}

async function main(): Promise<void> {
  let args: Record<string, unknown>;
  try {
    args = parseArgs(process.argv.slice(2), SPEC);
  } catch (e) {
    if (e instanceof UsageError) {
      const key = e.flag !== undefined && e.flag !== 'backend' ? FIELD[e.flag] : undefined;
      const f = e.flag !== undefined ? SPEC[e.flag] : undefined;
      // Where the flag sets a run-config field, name the schema's accepted values too (e.g. "a number in [0, 10]").
      const msg = !key ? e.message
        : e.value === undefined ? e.message.replace(/ needs a value \(.*\)$/, ` needs a value (${acceptedOf(e.flag!)})`)
        : f?.type === 'string' && f.choices ? `--${e.flag}: unknown value "${e.value}" (accepted: ${acceptedOf(e.flag!)})`
        : `${e.message} (accepted: ${acceptedOf(e.flag!)})`;
      fail(`${msg}\nrun npm run train -- --help for every flag, its accepted values and default`);
    }
    throw e;
  }
  if (args.help) {
    process.stdout.write(helpText() + '\n');
    return;
  }
  const partial: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(FIELD)) {
    const v = args[flag];
    if (v !== undefined && field !== 'init') partial[field] = v;
  }
  let config: RunConfig;
  try {
    config = parseRunConfig(partial);
  } catch (e) {
    if (e instanceof ConfigError) {
      // Config names in a message become the flags that set them (as the page shows its labels).
      const flagged = (m: string) => m.replace(/\b[a-z]+[A-Z][A-Za-z]*\b/g, (w) => flagOf(w));
      fail(e.issues.map((i) => `${flagOf(i.field)}: ${flagged(i.message)}`).join('\n'));
    }
    throw e;
  }
  const save = args.save as string | undefined;
  const saveBest = args['save-best'] as string | undefined;
  let init = args.init as string | undefined;
  const json = args.json === true;
  const runDir = args['run-dir'] as string | undefined;
  const resumeDir = args.resume as string | undefined;
  let resume: Resume | null = null;
  if (resumeDir !== undefined) {
    resume = prepareResume(resumeDir, partial, init, runDir);
    config = resume.config;
    init = resume.run.config.init;
  } else if (runDir !== undefined) prepareRunDir(runDir);
  else if (config.valTasks > 0) fail('--val-tasks needs --run-dir DIR (validation results go to DIR/val.json at each checkpoint)');
  const fromRunDir = args['from-run'] as string | undefined;
  let fromRun: FromRun | null = null;
  if (fromRunDir !== undefined && config.algo !== 'agentic-opd') fail('--from-run is the distillation stage of --algo agentic-opd; add --algo agentic-opd or drop --from-run');
  if (config.algo === 'agentic-opd' && !resume) {
    if (fromRunDir === undefined) fail('--algo agentic-opd distils from a GRPO run directory: pass --from-run DIR (a run trained with --run-dir DIR --checkpoint-every k --val-tasks n)');
    if (init !== undefined) fail('--algo agentic-opd starts from the run\'s best-validation checkpoint; drop --init');
    // The student and its teachers share the run's environment, model and prompt format: take them from the run.
    let run;
    try {
      run = readRun(fromRunDir);
    } catch (e) {
      fail(`--from-run: ${(e as Error).message}`);
    }
    for (const k of SHARED_WITH_RUN) {
      if (Object.hasOwn(partial, k) && partial[k] !== run.config[k]) fail(`--${flagOf(k).replace(/^--/, '')} ${String(partial[k])} differs from the run's ${String(run.config[k])} (${fromRunDir}/run.json); the student and its teachers keep the run's, so drop the flag`);
      partial[k] = run.config[k];
    }
    try {
      config = parseRunConfig(partial);
    } catch (e) {
      fail((e as Error).message);
    }
    const spec = getEnvSpec(config.env);
    try {
      fromRun = readFromRun(fromRunDir, config, spec, buildTokenizer(spec));
    } catch (e) {
      fail(`--from-run: ${(e as Error).message}`);
    }
    if (runDir !== undefined && !Object.hasOwn(partial, 'valTasks')) config = { ...config, valTasks: fromRun.valTasks, valSamples: fromRun.valSamples };
    init = path.join(fromRunDir, `ckpt-${fromRun.studentStep}.safetensors`);
  }
  if (resume && config.algo === 'agentic-opd') fromRun = resumeFromRun(resume, config, fromRunDir);
  if (save !== undefined) checkSavePath(save, '--save');
  if (saveBest !== undefined) {
    checkSavePath(saveBest, '--save-best');
    if ((config.evalEvery ?? 0) === 0) fail('--save-best needs evaluations: set --eval-every to a step count > 0');
    if (save !== undefined && path.resolve(save) === path.resolve(saveBest)) fail('--save and --save-best name the same file; give them different paths');
  }
  let initWeights: Uint8Array | undefined;
  if (resume) {
    // weights, reference and optimizer come from the checkpoint
  } else if (fromRun) {
    initWeights = fromRun.studentBytes;
  } else if (init === 'base' || init === 'scratch') {
    config = { ...config, init };
  } else if (init !== undefined) {
    if (!fs.existsSync(init) || !fs.statSync(init).isFile()) fail(`--init: no weights file at "${init}" (a .safetensors file written by --save)`);
    initWeights = new Uint8Array(fs.readFileSync(init));
  }
  const backend = await setupBackend(config.backend as NodeBackend);
  let versionWarning: EnvVersionWarning | null = null;
  if (initWeights) {
    // Validate before training so a bad file is a usage error (exit 2) naming what is wrong (a vocabulary
    // mismatch included); an older environment version only warns.
    let p;
    try {
      p = loadPolicy(initWeights, buildTokenizer(getEnvSpec(config.env)));
      disposePolicy(p);
    } catch (e) {
      fail(`--init ${init}: ${(e as Error).message}`);
    }
    if (p.size !== config.model) fail(`--init ${init} holds a ${p.size} model; pass --model ${p.size}`);
    versionWarning = envVersionWarning(fromRun ? `${fromRunDir}/ckpt-${fromRun.studentStep}.safetensors` : init!, p.meta, config.env);
  }
  if (!resume && !initWeights && config.init === 'base') {
    const spec = getEnvSpec(config.env);
    try {
      const base = await loadBaseFiles(spec, config.preset, buildTokenizer(spec));
      if (base.manifest.model !== config.model) fail(`--init base: the shipped base policy for ${config.env}/${config.preset} is a ${base.manifest.model} model; pass --model ${base.manifest.model}, or --init scratch`);
      initWeights = base.bytes;
    } catch (e) {
      fail(`--init base: ${(e as Error).message}`);
    }
  }
  const out = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
  let policy: PolicyHandle | undefined;
  const analyzerApiKey = process.env.OPD_ANALYZER_API_KEY || undefined;
  const best = new BestEval();
  if (resume?.best) Object.assign(best, resume.best);
  // historyTurns lets `eval --policy PATH` prompt the policy as it was trained.
  const command = 'npm run train -- ' + process.argv.slice(2).join(' ');
  const meta = { seed: String(config.seed), command, historyTurns: String(config.historyTurns) };
  const envVersions = { [config.env]: getEnvSpec(config.env).version };
  if (versionWarning) {
    process.stderr.write(`train: warning: ${versionWarning.message}\n`);
    if (json) out({ event: 'warning', kind: 'env-version', weights: versionWarning.weights, made: versionWarning.made, current: versionWarning.current });
  }
  const dir = resume?.dir ?? runDir;
  if (!resume && runDir !== undefined) makeRunDir(runDir);
  const record = dir !== undefined ? new RunRecorder(dir, config, command, backend, init !== 'base' && init !== 'scratch' ? init ?? null : null, resume, fromRun?.record ?? null) : null;
  const evalThreads = args['eval-threads'] as number;
  const pool = evalThreads > 0 && config.evalEvery > 0 ? new EvalPool(evalThreads, backend as NodeBackend) : null;
  const stream = train(config, {
    backend, initWeights, analyzerApiKey, profile: args.profile === true, onPolicy: (p) => (policy = p), evaluator: pool?.evaluate,
    evalOverlap: saveBest === undefined, // --save-best saves the live weights at an eval event: no step may run ahead of it
    checkpoints: record !== null, resume: resume ? { weights: resume.weights, state: resume.state } : undefined,
    algorithmInit: fromRun ? { teacherPool: fromRun.pool, studentSolved: fromRun.studentSolved } : undefined,
  });
  if (fromRun) {
    const msg = `distilling into the best-validation checkpoint (step ${fromRun.studentStep}, ${fromRun.studentSolved.size} val tasks solved) from ${fromRun.pool.ids.length} teacher checkpoint${fromRun.pool.ids.length === 1 ? '' : 's'} (steps ${fromRun.pool.ids.join(', ')})`;
    if (json) out({ event: 'teachers', student: fromRun.studentStep, studentSolved: fromRun.studentSolved.size, teachers: fromRun.pool.ids, from: fromRunDir ?? fromRun.record.dir });
    else process.stdout.write(msg + '\n');
  }
  for await (const raw of stream) {
    const ev = record ? record.take(raw) : raw;
    if (ev.event === 'done' && save && policy) saveOrRescue(save, '--save', await savePolicy(policy, config.model, envVersions, meta));
    if (json) {
      if (ev.event === 'step' || ev.event === 'eval' || ev.event === 'start' || ev.event === 'done' || ev.event === 'validation') out(ev);
      else if (ev.event === 'checkpoint') out(record?.lineOf(ev) ?? { event: 'checkpoint', step: ev.step });
    } else if (ev.event === 'start') process.stdout.write(`training ${config.algo} on ${config.env}/${config.preset}, model ${config.model} (${ev.params} params, vocab ${ev.vocabSize}), backend ${backend}, seed ${config.seed}\n`);
    else if (ev.event === 'step') {
      process.stdout.write(progress(ev, config.steps, config.targetKl > 0 ? config.miniBatches * config.ppoEpochs : 0) + '\n');
      if (ev.phaseMs) process.stdout.write(phaseLine(ev.phaseMs, ev.stepMs) + '\n');
    } else if (ev.event === 'eval') process.stdout.write(evalLine(ev) + (args.profile ? `  (${(ev.evalMs / 1000).toFixed(1)} s)` : '') + '\n');
    else if (ev.event === 'validation') process.stdout.write(`validation @ step ${ev.step}: ${(100 * ev.successRate).toFixed(1)}% mean pass rate over ${ev.passRates.length} val tasks × ${ev.samples}, ${ev.passRates.filter((r) => r >= 0.5).length} solved\n`);
    else if (ev.event === 'checkpoint') process.stdout.write(`checkpoint @ step ${ev.step}: ${dir}/${checkpointFile(ev.step)}\n`);
    else if (ev.event === 'done') process.stdout.write(`done: ${ev.steps} steps in ${(ev.elapsedMs / 1000).toFixed(1)} s${config.maxStepKl > 0 ? `, ${ev.undoneSteps} update${ev.undoneSteps === 1 ? '' : 's'} undone by --max-step-kl${config.klBacktracks > 0 ? `, ${ev.shrunkSteps} shrunk by the line search` : ''}` : ''}\n`);
    if (ev.event === 'eval' && saveBest && policy && best.offer(ev)) {
      const splits = JSON.stringify(best.splits);
      saveOrRescue(saveBest, '--save-best', await savePolicy(policy, config.model, envVersions, { ...meta, bestStep: String(ev.step), bestScore: String(best.score), bestSplits: splits }));
      if (json) out({ event: 'best', step: ev.step, score: best.score, splits: best.splits, path: saveBest });
      else process.stdout.write(`best so far @ step ${ev.step}: mean test success ${(100 * best.score).toFixed(1)}%, saved to ${saveBest}\n`);
    }
  }
  fromRun?.pool.dispose();
  await pool?.close();
}

/** A run directory to continue: its record, the resolved config and the latest checkpoint's bytes. */
interface Resume {
  dir: string;
  run: RunRecord;
  config: RunConfig;
  step: number;
  weights: Uint8Array;
  state: Uint8Array;
  best: { step: number; score: number; splits: Record<string, number> } | null;
  val: ValRecord | null;
}

/** Flags given on the command line (without `--`), whatever their parsed defaults. */
function givenFlags(): Set<string> {
  return new Set(process.argv.slice(2).filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]));
}

/**
 * Check `--resume DIR` and read what it needs: run.json, events.jsonl and val.json validated, the latest checkpoint
 * with both files, run-setting flags equal to the recorded config (only --steps may differ, and must exceed the
 * checkpoint's step). Exits 2 with the reason otherwise.
 */
function prepareResume(dir: string, partial: Record<string, unknown>, init: string | undefined, runDir: string | undefined): Resume {
  if (runDir !== undefined) fail('--resume continues the run in its own folder; drop --run-dir');
  let run: RunRecord, val: ValRecord | null;
  try {
    run = readRun(dir);
    readEvents(dir);
    val = readVal(dir);
  } catch (e) {
    if (e instanceof RunDirError) fail(`--resume: ${e.message}`);
    throw e;
  }
  const spec = getEnvSpec(run.config.env);
  if (Object.hasOwn(run.envVersions, spec.name) && run.envVersions[spec.name] !== spec.version)
    fail(`--resume: the run was made with environment version ${run.envVersions[spec.name]}; this is ${spec.version}, whose tasks differ; start a new run`);
  const given = givenFlags();
  for (const [flag, field] of Object.entries(FIELD)) {
    if (!given.has(flag) || field === 'steps') continue;
    if (field === 'init') {
      if (init !== run.config.init) fail(`--resume: --init ${init} differs from the run's ${run.config.init}; the weights come from the checkpoint, so drop --init`);
      continue;
    }
    if (partial[field] !== run.config[field]) fail(`--resume: --${flag} ${String(partial[field])} differs from the run's ${String(run.config[field])}; a resumed run keeps its config (only --steps may change)`);
  }
  // Without --steps: the planned steps of the latest resume (which may have extended the run), else the config's.
  const steps = given.has('steps') ? (partial.steps as number) : (run.resumes.at(-1)?.steps ?? run.config.steps);
  const ckpts = listCheckpoints(dir);
  if (!ckpts.length) fail(`--resume: ${dir} holds no checkpoint (ckpt-<k>.safetensors with its ckpt-<k>.state); the run must have reached its first --checkpoint-every step`);
  const step = ckpts[ckpts.length - 1];
  if (step >= steps) fail(`--resume: the latest checkpoint is at step ${step} and the run has ${steps} steps; nothing to do (pass --steps N > ${step} to extend it)`);
  const weights = new Uint8Array(fs.readFileSync(path.join(dir, checkpointFile(step))));
  const state = new Uint8Array(fs.readFileSync(path.join(dir, stateFile(step))));
  let decoded;
  try {
    decoded = decodeTrainState(state);
    if (decoded.step !== step) throw new Error(`it records step ${decoded.step}`);
  } catch (e) {
    fail(`--resume: ${path.join(dir, stateFile(step))} is corrupt (${(e as Error).message}); remove this checkpoint's two files to resume from the one before`);
  }
  return { dir, run, config: { ...run.config, steps }, step, weights, state, best: decoded.best, val };
}

/**
 * The teachers of a resumed distillation stage: the source run recorded in run.json (`fromRun`), read again after
 * checking that its val.json and the checkpoint files the stage read are unchanged (sha256). Exits 2 naming what
 * changed, or when `--from-run` names another directory.
 */
function resumeFromRun(resume: Resume, config: RunConfig, given: string | undefined): FromRun {
  const rec = resume.run.fromRun;
  if (!rec) fail(`--resume: ${path.join(resume.dir, 'run.json')} records no --from-run source for this agentic-opd run; start a new distillation with --from-run DIR`);
  if (given !== undefined && path.resolve(given) !== rec.dir) fail(`--resume: --from-run ${given} differs from the run's ${rec.dir}; a resumed distillation keeps its source, so drop --from-run`);
  let fr: FromRun;
  try {
    checkFromRunUnchanged(rec);
    const spec = getEnvSpec(config.env);
    fr = readFromRun(rec.dir, config, spec, buildTokenizer(spec));
  } catch (e) {
    fail(`--resume: ${(e as Error).message}`);
  }
  if (fr.studentStep !== rec.student.step || fr.pool.ids.join() !== rec.teachers.map((t) => t.step).join())
    fail(`--resume: the source run ${rec.dir} now gives student ${fr.studentStep} and teachers ${fr.pool.ids.join(', ')}, the run began with student ${rec.student.step} and teachers ${rec.teachers.map((t) => t.step).join(', ')}; start a new distillation`);
  return fr;
}

/** Check `--run-dir DIR`: a new or empty folder (made by `makeRunDir` once every other check has passed). Exits 2 otherwise. */
function prepareRunDir(dir: string): void {
  if (dir.trim() === '') fail('--run-dir needs a folder path, e.g. --run-dir runs/grpo-seed1');
  if (fs.existsSync(dir)) {
    if (!fs.statSync(dir).isDirectory()) fail(`--run-dir: "${dir}" is a file; give a folder path`);
    if (fs.readdirSync(dir).length) fail(`--run-dir: "${dir}" is not empty; give a new folder, or continue that run with --resume ${dir}`);
  }
}

/** Create `--run-dir DIR` (checked by `prepareRunDir`). Exits 2 when it cannot be made. */
function makeRunDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    fail(`--run-dir: cannot create "${dir}" (${(e as Error).message})`);
  }
}

/** A checkpoint event as written to events.jsonl: file names instead of bytes. */
type CheckpointLine = { event: 'checkpoint'; step: number; file: string; stateFile: string };

/** Writes the run record as the trainer's events come (format: src/core/run/record.ts). */
class RunRecorder {
  private readonly log: EventLog;
  private val: ValRecord | null;
  private run: RunRecord | null = null;

  constructor(
    private readonly dir: string, private readonly config: RunConfig, private readonly command: string, private readonly backend: string,
    private readonly initWeights: string | null, private readonly resume: Resume | null,
    /** A distillation stage's source run and the sha256 of what it read (run.json `fromRun`). */
    private readonly fromRun: FromRunRecord | null = null,
  ) {
    if (resume) {
      cutEventsAt(dir, resume.step);
      this.val = resume.val ? { ...resume.val, checkpoints: resume.val.checkpoints.filter((c) => c.step <= resume.step) } : null;
      if (this.val) writeVal(dir, this.val);
      this.run = { ...resume.run, resumes: [...resume.run.resumes, { fromStep: resume.step, steps: config.steps, command, at: new Date().toISOString() }] };
      writeRun(dir, this.run);
    } else this.val = null;
    this.log = new EventLog(dir);
  }

  /** The events.jsonl line of a checkpoint event. */
  lineOf(ev: { step: number }): CheckpointLine {
    return { event: 'checkpoint', step: ev.step, file: checkpointFile(ev.step), stateFile: stateFile(ev.step) };
  }

  /** Record one event (files first, then its line); returns it unchanged. */
  take(ev: TrainEvent): TrainEvent {
    if (ev.event === 'start' && !this.run) {
      this.run = {
        format: RUN_FORMAT, version: RECORD_VERSION, config: ev.config, envVersions: ev.envVersions, command: this.command, argv: process.argv.slice(2),
        backend: ev.backend, params: ev.params, vocabSize: ev.vocabSize, initWeights: this.initWeights, createdAt: new Date().toISOString(), resumes: [],
        ...(this.fromRun ? { fromRun: this.fromRun } : {}),
      };
      writeRun(this.dir, this.run);
    }
    if (ev.event === 'validation') {
      this.val = addValidation(this.val ?? emptyValRecord(this.config, ev.taskTypes), ev.step, ev.passRates, ev.taskTypes);
      writeVal(this.dir, this.val);
    }
    if (ev.event === 'checkpoint') {
      writeCheckpoint(this.dir, ev.step, ev.weights, ev.state);
      this.log.append(this.lineOf(ev));
      this.log.sync();
    } else if (ev.event !== 'trajectories') this.log.append(ev);
    if (ev.event === 'done') this.log.close();
    return ev;
  }
}

main().catch((e) => {
  process.stderr.write(`train: ${e instanceof Error ? (process.env.OPD_DEBUG ? e.stack : e.message) : String(e)}\n`);
  process.exit(1);
});
