/**
 * The readable lines `npm run train` prints without --json: the start, progress per step, its time split,
 * evaluations, validations, the end, a distillation stage's teachers, and a run stopped by a non-finite value.
 */
import type {
  DoneEvent,
  ErrorEvent,
  EvalEvent,
  StartEvent,
  StepEvent,
  ValidationEvent,
} from '../src/core/train/events';
import { algorithmsUsing, type RunConfig } from '../src/core/run/config';
import type { GrownFrom } from '../src/core/model/grow';
import type { Start } from './train-start';
import { basePolicyWords } from './base';
import { checkpointFile } from '../src/core/run/record';
import path from 'node:path';
import type { FromRun } from './from-run';
import { algorithmTraits, type AlgorithmChart } from '../src/core/algorithm-catalog';
import { counted } from '../src/core/count-text';

/**
 * The analyzer of a run whose algorithm uses one (core/algorithm-catalog.ts `usesAnalyzer`), as the start line names
 * it: `analyzer heuristic`, `analyzer http <url> <model>` or `analyzer oracle (privileged)`; null for the others.
 */
export function analyzerWords(config: RunConfig): string | null {
  if (!algorithmTraits(config.algo).usesAnalyzer) return null;
  if (config.analyzer === 'http') return `analyzer http ${config.analyzerUrl} ${config.analyzerModel}`;
  return config.analyzer === 'oracle' ? 'analyzer oracle (privileged)' : `analyzer ${config.analyzer}`;
}

/**
 * Where a run's weights start, as the start line says it: `from the shipped base policy` (with OPD_PUBLIC_DIR set,
 * `from the base policy under OPD_PUBLIC_DIR=<value>`), `from scratch`, `from <path>` (an --init file, or a
 * distillation stage's student checkpoint), `from <path>, grown from nano` (a file grown into the config's model);
 * null for --resume (the line then names the checkpoint it continues from).
 */
export function startOrigin(start: Start, grownFrom?: GrownFrom | null): string | null {
  if (start.from === 'resume') return null;
  if (start.from === 'base') return `from ${basePolicyWords()}`;
  if (start.from === 'scratch') return 'from scratch';
  return `from ${start.name}${grownFrom ? `, grown from ${grownFrom.model}` : ''}`;
}

/**
 * The A_skill variant of a run whose algorithm reads it (`skill variant centred`), when not the paper's; null
 * otherwise.
 */
export function skillVariantWords(config: RunConfig): string | null {
  if (config.skillVariant === 'paper' || !algorithmsUsing('skillVariant')?.includes(config.algo)) return null;
  return `skill variant ${config.skillVariant}`;
}

/**
 * The start: algorithm, env, model, where its weights come from (`startOrigin`; none given, none said), backend and
 * seed, the analyzer of an algorithm that uses one, an A_skill variant beyond the paper's, and the step a resumed run
 * continues from.
 */
export function startLine(ev: StartEvent, config: RunConfig, backend: string, origin: string | null = null): string {
  const resumed = ev.resumedFrom !== undefined ? `; resumed from the checkpoint of step ${ev.resumedFrom}` : '';
  const extras = [analyzerWords(config), skillVariantWords(config)].filter((w) => w !== null);
  return (
    `training ${config.algo} on ${config.env}/${config.preset}, model ${config.model} (${ev.params} ` +
    `params, vocab ${ev.vocabSize})${origin ? `, ${origin}` : ''}, backend ${backend}, seed ${config.seed}` +
    extras.map((w) => `, ${w}`).join('') +
    resumed
  );
}

/** A validation: the mean pass rate over the val tasks and how many of them are solved (pass rate ≥ 0.5). */
export function validationLine(ev: ValidationEvent): string {
  return (
    `validation @ step ${ev.step}: ${(100 * ev.successRate).toFixed(1)}% mean pass rate over ` +
    `${counted(ev.passRates.length, 'val task')} × ${ev.samples}, ` +
    `${ev.passRates.filter((r) => r >= 0.5).length} solved`
  );
}

/** The end: steps and time, with --max-step-kl the updates undone (and, with --kl-backtracks, shrunk). */
export function doneLine(ev: DoneEvent, config: RunConfig): string {
  const shrunk = config.klBacktracks > 0 ? `, ${ev.shrunkSteps} shrunk by the line search` : '';
  const undone = config.maxStepKl > 0 ? `, ${counted(ev.undoneSteps, 'update')} undone by --max-step-kl${shrunk}` : '';
  return `done: ${counted(ev.steps, 'step')} in ${(ev.elapsedMs / 1000).toFixed(1)} s${undone}`;
}

/** A distillation stage's start: the student checkpoint, its solved val tasks and the teacher checkpoints. */
export function teachersLine(fromRun: FromRun): string {
  const ids = fromRun.pool.ids;
  return (
    `distilling into the best-validation checkpoint (step ${fromRun.studentStep}, ` +
    `${counted(fromRun.studentSolved.size, 'val task')} solved) from ${counted(ids.length, 'teacher checkpoint')} ` +
    `(steps ${ids.join(', ')})`
  );
}

/** `--profile`: one line of where a step's wall time went, in seconds and shares — every phase, so steps line up. */
export function phaseLine(p: NonNullable<StepEvent['phaseMs']>, stepMs: number): string {
  const parts = Object.entries(p).map(
    ([k, ms]) => `${k} ${(ms / 1000).toFixed(2)} s (${((100 * ms) / Math.max(stepMs, 1e-3)).toFixed(0)}%)`,
  );
  return `  time: ${parts.join(', ')}`;
}

/**
 * One readable progress line; `plannedUpdates` > 0 (target KL on) adds the updates applied of those planned. `charts`
 * (the algorithm's, core/algorithm-catalog.ts) decides whether the skill signal is shown beside the analyzer's calls:
 * only for an algorithm that charts a teacher share (OPID), not for Skill-GRPO, whose skill numbers are always 0.
 */
export function progress(
  e: StepEvent,
  total: number,
  plannedUpdates: number,
  charts: readonly AlgorithmChart[] = ['teacher-share'],
): string {
  const w = 20,
    filled = Math.round((e.step / total) * w);
  const eta = ((total - e.step) * e.elapsedMs) / e.step / 1000;
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(w - filled)}]`;
  const lr = e.learningRate.toExponential(2);
  const stepKl = e.stepKl !== null ? `  step KL ${e.stepKl.toFixed(4)}${stepOutcome(e)}` : '';
  const updates = plannedUpdates ? `  updates ${e.updates}/${plannedUpdates}` : '';
  return (
    `${bar} step ${e.step}/${total}  success ${(100 * e.successRate).toFixed(0)}% ` +
    ` reward ${e.rewardMean.toFixed(2)}  loss ${e.policyLoss.toFixed(4)}  KL ${e.kl.toFixed(4)} nats  ` +
    `clip ${(100 * e.clipFraction).toFixed(1)}%  entropy ${e.entropy.toFixed(3)} nats  lr ${lr}${stepKl}${updates} ` +
    ` ${e.tokensPerSecond.toFixed(0)} tok/s  ${(e.stepMs / 1000).toFixed(1)} s/step  ETA ${eta.toFixed(0)} ` +
    `s` +
    (e.analyzerCalls || e.analyzerFailures ? analyzerPart(e, charts.includes('teacher-share')) : '') +
    typeLine(e.skillByTaskType)
  );
}

/** After the step KL: whether the step was undone or shrunk (by how much, and the step KL kept). */
function stepOutcome(e: StepEvent): string {
  if (e.rolledBack) return ' UNDONE';
  return e.stepScale < 1 ? ` SHRUNK ×${e.stepScale} → ${e.keptStepKl!.toFixed(4)}` : '';
}

/**
 * The analyzer's part of the progress line: with `skillSignal` (OPID) first the teacher share (or top-k KL), skill
 * activity and sign agreement (`–` when no trajectory counted: every group all-fail or all-success), then the
 * analyzer's calls and failures.
 */
function analyzerPart(e: StepEvent, skillSignal: boolean): string {
  const signal =
    e.topkReverseKl !== undefined
      ? `top-k KL ${e.topkReverseKl.toFixed(4)} nats`
      : `teacher share ${(100 * e.teacherShare).toFixed(1)}%`;
  const reasons = Object.keys(e.analyzerFailureReasons).length
    ? ' (' +
      Object.entries(e.analyzerFailureReasons)
        .map(([k, v]) => `${k} ×${v}`)
        .join(', ') +
      ')'
    : '';
  // No trajectory with skill-active tokens and A_ep ≠ 0 (every group all-fail or all-success): nothing to agree on.
  const judged = e.skillByTaskType && Object.values(e.skillByTaskType).reduce((n, x) => n + x.agreementCounted, 0);
  const agreement = judged === 0 ? '–' : `${(100 * e.skillSignAgreement).toFixed(0)}%`;
  const skills = skillSignal
    ? `${signal}  skill-active ${(100 * e.skillActiveTokenRatio).toFixed(0)}%  sign agreement ${agreement}  `
    : '';
  return `  | ${skills}analyzer ${counted(e.analyzerCalls, 'call')}, ${e.analyzerFailures} failed${reasons}`;
}

/**
 * OPID with more than one task type in the step: teacher share and sign agreement per type (`  | by type (teacher
 * share, sign agreement): pick 5.1% 75%, …`; `–` where no trajectory of the type counted for agreement).
 */
function typeLine(m: StepEvent['skillByTaskType']): string {
  if (!m || Object.keys(m).length < 2) return '';
  return `  | by type (teacher share, sign agreement): ${Object.entries(m)
    .map(([t, x]) => {
      const agreement = x.agreementCounted === 0 ? '–' : `${(100 * x.skillSignAgreement).toFixed(0)}%`;
      return `${t} ${(100 * x.teacherShare).toFixed(1)}% ${agreement}`;
    })
    .join(', ')}`;
}

/** One readable line of an evaluation: success per split and per task type. */
export function evalLine(e: EvalEvent): string {
  return (
    `eval @ step ${e.step}: ` +
    Object.entries(e.splits)
      .map(
        ([s, v]) =>
          `${s} ${(100 * v!.successRate).toFixed(1)}% (${counted(v!.episodes, 'episode')}; ` +
          Object.entries(v!.byTaskType)
            .map(([t, x]) => `${t} ${(100 * x.successRate).toFixed(1)}%`)
            .join(', ') +
          ')',
      )
      .join('  ')
  );
}

/** Where a run stopped by a non-finite value kept what it had: its run directory and the --save file, if any. */
export interface StoppedRunFiles {
  /** The run directory written (--run-dir, or the resumed one). */
  dir: string | undefined;
  /** --save's path, and whether the weights from before the stopped step were written there. */
  save: string | undefined;
  saved: boolean;
}

/**
 * The lines (stderr) of a run stopped by a non-finite value: the error's message with the settings as flags, the
 * checkpoint it can continue from and how (`--resume` keeps the run's settings and would meet the same value again:
 * other settings start a new run from that checkpoint with `--init`), and what --save holds.
 */
export function nonFiniteLines(ev: ErrorEvent, f: StoppedRunFiles): string[] {
  const s = ev.settings;
  const flags =
    `--lr ${s.learningRate}, --kl-beta ${s.klBeta}, --max-grad-norm ${s.maxGradNorm}` +
    `${s.maxGradNorm > 0 ? '' : ' (off)'}, --entropy-coef ${s.entropyCoef}`;
  const lines = [`train: ${ev.message}`, `train: the settings now: ${flags}`];
  const k = ev.lastCheckpoint;
  if (f.dir !== undefined && k !== null) {
    const ckpt = path.join(f.dir, checkpointFile(k));
    lines.push(
      `train: ${f.dir} keeps its last good checkpoint, step ${k} (${ckpt}). --resume ${f.dir} keeps the run's ` +
        `settings (only --steps may change) and would meet the same value at step ${ev.step} again; to continue ` +
        `with other settings, start a new run from that checkpoint (Adam's state and the KL reference start ` +
        `afresh from it): npm run train -- --init ${ckpt} --run-dir NEW_DIR with a lower --lr or --kl-beta, or ` +
        `--max-grad-norm 1`,
    );
  } else if (f.dir !== undefined)
    lines.push(`train: ${f.dir} holds no checkpoint from before step ${ev.step} (nothing to continue from)`);
  else lines.push('train: no checkpoint was kept (--run-dir DIR keeps checkpoints a run can continue from)');
  if (f.save !== undefined)
    lines.push(
      f.saved
        ? `train: --save ${f.save} holds the weights from before step ${ev.step} (the last finite ones)`
        : `train: --save ${f.save} was not written`,
    );
  return lines;
}
