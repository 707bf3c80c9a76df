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
import { readFromRun, SHARED_WITH_RUN, type FromRun } from './from-run';
import { unionStartWarning } from '../src/core/algorithms/agentic-opd';
import { algorithmTraits, distillationAlgorithm } from '../src/core/algorithm-catalog';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, UsageError } from './args';
import { buildTokenizer, disposePolicy, loadPolicy, savePolicy } from '../src/core/model/policy';
import { BestEval } from '../src/core/train/best';
import { getEnvSpec } from '../src/core/envs/registry';
import type { PolicyHandle } from '../src/core/model/policy';
import { setupBackend, type NodeBackend } from './backend';
import { loadBaseFiles } from './base';
import { exitOnClosedStdout, writeAtomic } from './files';
import { EvalPool } from './eval-pool';
import { ConfigError, parseRunConfig, type RunConfig } from '../src/core/run/config';
import { train } from '../src/core/train/trainer';
import { checkpointFile } from '../src/core/run/record';
import { gapNoiseNote } from '../src/core/run/coverage-noise';
import { readRun } from './rundir';
import { runFileAsWeights } from './packfile';
import { notAWeightsFile, notSafetensors, type WeightsFlagOptions } from './weightsfile';

/** train --init's words besides a weights path; a folder given to it is more likely a run to --resume. */
const INIT_FLAG: WeightsFlagOptions = { others: ['base', 'scratch'], resume: true };
import {
  FIELD,
  SPEC,
  acceptedOf,
  configFieldsOf,
  fail,
  flagOf,
  helpText,
  ignoredFlagIssues,
  rangeIssue,
} from './train-flags';
import { RunRecorder, makeRunDir, prepareResume, prepareRunDir, resumeFromRun, type Resume } from './train-rundir';

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

async function main(): Promise<void> {
  let args: Record<string, unknown>;
  try {
    args = parseArgs(process.argv.slice(2), SPEC);
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
  if (args.help) {
    process.stdout.write(helpText() + '\n');
    return;
  }
  const partial = configFieldsOf(args);
  let config: RunConfig;
  try {
    config = parseRunConfig(partial);
  } catch (e) {
    if (e instanceof ConfigError) {
      // Config names in a message become the flags that set them (as the page shows its labels).
      const flagged = (m: string) => m.replace(/\b[a-z]+[A-Z][A-Za-z]*\b/g, (w) => flagOf(w));
      // A number outside its range: the flag, the range, the value given and the fix, as for every other flag.
      const argv = process.argv.slice(2);
      const lines = e.issues.map(
        (i) => rangeIssue(i.field, partial[i.field], argv) ?? `${flagOf(i.field)}: ${flagged(i.message)}`,
      );
      fail([...new Set(lines)].join('\n'));
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
  else if (config.valTasks > 0)
    fail('--val-tasks needs --run-dir DIR (validation results go to DIR/val.json at each checkpoint)');
  // A setting of another algorithm (e.g. --opd-topk with --algo grpo) would be ignored without a word: refuse it.
  const ignored = ignoredFlagIssues(process.argv.slice(2), config.algo);
  if (ignored.length) fail(ignored.join('\n'));
  const fromRunDir = args['from-run'] as string | undefined;
  let fromRun: FromRun | null = null;
  // The algorithm that distils a run's checkpoints (its teacherPool trait) reads them with --from-run.
  const distil = distillationAlgorithm();
  const pooled = algorithmTraits(config.algo).teacherPool;
  if (fromRunDir !== undefined && !pooled)
    fail(`--from-run is the distillation stage of --algo ${distil}; add --algo ${distil} or drop --from-run`);
  if (pooled && !resume) {
    if (fromRunDir === undefined)
      fail(
        `--algo ${config.algo} distils from a GRPO run directory: pass --from-run DIR (a run trained with ` +
          '--run-dir DIR --checkpoint-every k --val-tasks n)',
      );
    if (init !== undefined) fail(`--algo ${config.algo} starts from the run's best-validation checkpoint; drop --init`);
    // The student and its teachers share the run's environment, model and prompt format: take them from the run.
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
    if (runDir !== undefined && !Object.hasOwn(partial, 'valTasks'))
      config = { ...config, valTasks: fromRun.valTasks, valSamples: fromRun.valSamples };
    init = path.join(fromRunDir, `ckpt-${fromRun.studentStep}.safetensors`);
  }
  if (resume && pooled) fromRun = resumeFromRun(resume, config, fromRunDir);
  if (save !== undefined) checkSavePath(save, '--save');
  if (saveBest !== undefined) {
    checkSavePath(saveBest, '--save-best');
    if ((config.evalEvery ?? 0) === 0) fail('--save-best needs evaluations: set --eval-every to a step count > 0');
    if (save !== undefined && path.resolve(save) === path.resolve(saveBest))
      fail('--save and --save-best name the same file; give them different paths');
  }
  let initWeights: Uint8Array | undefined;
  if (resume) {
    // weights, reference and optimizer come from the checkpoint
  } else if (fromRun) {
    initWeights = fromRun.studentBytes;
  } else if (init === 'base' || init === 'scratch') {
    config = { ...config, init };
  } else if (init !== undefined) {
    const missing = notAWeightsFile(init, '--init', INIT_FLAG);
    if (missing) fail(missing);
    initWeights = new Uint8Array(fs.readFileSync(init));
    const packed =
      runFileAsWeights(init, initWeights, '--init') ?? notSafetensors(init, initWeights, '--init', INIT_FLAG);
    if (packed) fail(packed);
  }
  const backend = await setupBackend(config.backend as NodeBackend);
  let versionWarning: EnvVersionWarning | null = null;
  if (resume?.skipped.length) {
    const lone = resume.skipped.map(
      (f) =>
        `${f} without ${f.endsWith('.state') ? f.replace(/\.state$/, '.safetensors') : f.replace(/\.safetensors$/, '.state')}`,
    );
    process.stderr.write(
      `train: warning: --resume: ${lone.join(', ')} (an interrupted checkpoint write?) ${lone.length === 1 ? 'is' : 'are'} ` +
        `skipped; the run continues from the checkpoint of step ${resume.step}\n`,
    );
  }
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
    versionWarning = envVersionWarning(
      fromRun ? `${fromRunDir}/ckpt-${fromRun.studentStep}.safetensors` : init!,
      p.meta,
      config.env,
    );
  }
  if (!resume && !initWeights && config.init === 'base') {
    const spec = getEnvSpec(config.env);
    try {
      const base = await loadBaseFiles(spec, config.preset, buildTokenizer(spec));
      if (base.manifest.model !== config.model)
        fail(
          `--init base: the shipped base policy for ${config.env}/${config.preset} is a ${base.manifest.model} ` +
            `model; pass --model ${base.manifest.model}, or --init scratch`,
        );
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
    if (json)
      out({
        event: 'warning',
        kind: 'env-version',
        weights: versionWarning.weights,
        made: versionWarning.made,
        current: versionWarning.current,
      });
  }
  const dir = resume?.dir ?? runDir;
  if (!resume && runDir !== undefined) makeRunDir(runDir);
  const record =
    dir !== undefined
      ? new RunRecorder(
          dir,
          config,
          command,
          backend,
          init !== 'base' && init !== 'scratch' ? (init ?? null) : null,
          resume,
          fromRun?.record ?? null,
        )
      : null;
  const evalThreads = args['eval-threads'] as number;
  const pool = evalThreads > 0 && config.evalEvery > 0 ? new EvalPool(evalThreads, backend as NodeBackend) : null;
  const stream = train(config, {
    backend,
    initWeights,
    analyzerApiKey,
    profile: args.profile === true,
    onPolicy: (p) => (policy = p),
    evaluator: pool?.evaluate,
    evalOverlap: saveBest === undefined, // --save-best saves the live weights at an eval event: no step may run ahead of it
    checkpoints: record !== null,
    resume: resume ? { weights: resume.weights, state: resume.state } : undefined,
    algorithmInit: fromRun ? { teacherPool: fromRun.pool, studentSolved: fromRun.studentSolved } : undefined,
  });
  if (fromRun) {
    const msg =
      `distilling into the best-validation checkpoint (step ${fromRun.studentStep}, ${fromRun.studentSolved.size} ` +
      `val tasks solved) from ${fromRun.pool.ids.length} teacher checkpoint${fromRun.pool.ids.length === 1 ? '' : 's'} ` +
      `(steps ${fromRun.pool.ids.join(', ')})`;
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
    else process.stdout.write(`${msg}\n${gapNoiseNote(fromRun.gap.observed, fromRun.gap.noise)}\n`);
    const unionWarning = config.teacherSelect === 'union' ? unionStartWarning(fromRun.pool) : null;
    if (unionWarning) {
      process.stderr.write(`train: warning: ${unionWarning}\n`);
      if (json) out({ event: 'warning', kind: 'union-no-teacher', message: unionWarning });
    }
  }
  for await (const raw of stream) {
    const ev = record ? record.take(raw) : raw;
    if (ev.event === 'done' && save && policy)
      saveOrRescue(save, '--save', await savePolicy(policy, config.model, envVersions, meta));
    if (json) {
      if (
        ev.event === 'step' ||
        ev.event === 'eval' ||
        ev.event === 'start' ||
        ev.event === 'done' ||
        ev.event === 'validation'
      )
        out(ev);
      else if (ev.event === 'checkpoint') out(record?.lineOf(ev) ?? { event: 'checkpoint', step: ev.step });
    } else if (ev.event === 'start')
      process.stdout.write(
        `training ${config.algo} on ${config.env}/${config.preset}, model ${config.model} (${ev.params} ` +
          `params, vocab ${ev.vocabSize}), backend ${backend}, seed ${config.seed}${ev.resumedFrom !== undefined ? `; resumed from the checkpoint of step ${ev.resumedFrom}` : ''}\n`,
      );
    else if (ev.event === 'step') {
      process.stdout.write(
        progress(ev, config.steps, config.targetKl > 0 ? config.miniBatches * config.ppoEpochs : 0) + '\n',
      );
      if (ev.phaseMs) process.stdout.write(phaseLine(ev.phaseMs, ev.stepMs) + '\n');
    } else if (ev.event === 'eval')
      process.stdout.write(evalLine(ev) + (args.profile ? `  (${(ev.evalMs / 1000).toFixed(1)} s)` : '') + '\n');
    else if (ev.event === 'validation')
      process.stdout.write(
        `validation @ step ${ev.step}: ${(100 * ev.successRate).toFixed(1)}% mean pass rate over ${ev.passRates.length} ` +
          `val tasks × ${ev.samples}, ${ev.passRates.filter((r) => r >= 0.5).length} solved\n`,
      );
    else if (ev.event === 'checkpoint')
      process.stdout.write(`checkpoint @ step ${ev.step}: ${dir}/${checkpointFile(ev.step)}\n`);
    else if (ev.event === 'done')
      process.stdout.write(
        `done: ${ev.steps} steps in ${(ev.elapsedMs / 1000).toFixed(1)} s${config.maxStepKl > 0 ? `, ${ev.undoneSteps} update${ev.undoneSteps === 1 ? '' : 's'} undone by --max-step-kl${config.klBacktracks > 0 ? `, ${ev.shrunkSteps} shrunk by the line search` : ''}` : ''}\n`,
      );
    if (ev.event === 'eval' && saveBest && policy && best.offer(ev)) {
      const splits = JSON.stringify(best.splits);
      saveOrRescue(
        saveBest,
        '--save-best',
        await savePolicy(policy, config.model, envVersions, {
          ...meta,
          bestStep: String(ev.step),
          bestScore: String(best.score),
          bestSplits: splits,
        }),
      );
      if (json) out({ event: 'best', step: ev.step, score: best.score, splits: best.splits, path: saveBest });
      else
        process.stdout.write(
          `best so far @ step ${ev.step}: mean test success ${(100 * best.score).toFixed(1)}%, saved to ${saveBest}\n`,
        );
    }
  }
  fromRun?.pool.dispose();
  await pool?.close();
}
main().catch((e) => {
  process.stderr.write(`train: ${e instanceof Error ? (process.env.OPD_DEBUG ? e.stack : e.message) : String(e)}\n`);
  process.exit(1);
});
