/**
 * The run record: the one on-disk format of a training run (`train --run-dir DIR`), read by `train --resume`,
 * `coverage`, `compare` and anything later that learns from a run's checkpoints. Pure: parsing text; the CLI
 * (cli/rundir.ts) reads and writes the files. What reads a parsed record lives beside it: ./coverage.ts (the solved
 * matrix's coverage), ./summary.ts (a run's line of `compare`), ./resume-checks.ts (a run's own consistency checks
 * before a resume).
 *
 * A run directory holds:
 * - `run.json` — `{format: "opd-playground-run", version: 1, config: RunConfig (complete, validated), envVersions:
 *   {env: version}, command: string (how the run was started), argv: string[], backend: string (the tfjs backend),
 *   params: number (parameter count), vocabSize: number, initWeights: string | null (the --init path, when weights
 *   came from a file), initSha256?: string (the hex sha256 of the weights the run began from, base or file; absent
 *   for a fresh init and in records written before the field), createdAt: ISO time, resumes: [{fromStep, steps,
 *   command, at}], fromRun?, grownFrom?}`.
 *   `grownFrom` (`{model, sha256}`): the --init file was of that smaller size, with that hex sha256, and was grown
 *   into the config's model (core/model/grow.ts). `fromRun` (an Agentic-OPD distillation stage) names the GRPO run
 *   it distils and fingerprints what it read, so that a resume
 *   refuses a source that changed since: `{dir, valSha256, student: {step, file, sha256}, teachers: [{step, file,
 *   sha256}]}`. `dir` is where the source run is: from the CLI (`train --from-run SRC`), SRC resolved to an absolute
 *   path when the stage began (cli/from-run.ts; `--resume` reads the source from it again); from the page, the
 *   source's stored-run id (`StoredRunMeta.id`, its key in the browser's run store, worker/runs.ts; set by
 *   worker/distill.ts `pageFromRun`), neither a path nor the run's display name. `valSha256` is the hex sha256 of SRC's
 *   val.json bytes (CLI) or of the solved-matrix
 *   rows the stage read (page, `stageValSha256`); `file` is the checkpoint's file name `ckpt-<k>.safetensors` and
 *   `sha256` the hex sha256 of its policy bytes.
 * - `events.jsonl` — one JSON object per line, appended and flushed as the trainer yields them: `start`, `step`,
 *   `eval`, `validation`, `checkpoint`, `done` (core/train/events.ts; a resumed run adds a `start` with
 *   `resumedFrom`). A `checkpoint` line is `{event, step, file, stateFile, sha256?: {weights, state}}` (file names in
 *   DIR and the hex sha256 of their bytes, no bytes; records written before the hashes existed lack `sha256`). A
 *   resume refuses a run.json whose config differs from the first `start` line's, and a latest checkpoint whose files
 *   differ from the hashes of its line (`configChanges`, `checkpointMismatch`). On resume
 *   from checkpoint k, lines after step k (from an interrupted continuation) are dropped before appending.
 * - `ckpt-<k>.safetensors` — the policy after step k, `savePolicy`'s format (loadPolicy, `eval --policy`, `--init`).
 * - `ckpt-<k>.state` — safetensors bytes with what resuming needs (core/train/checkpoint.ts: Adam moments and β
 *   powers, iteration count, reference policy, algorithm state, best evaluation). Not named `.safetensors` so that a
 *   glob of checkpoints finds policies only.
 * - `val.json` (with valTasks > 0) — `{format: "opd-playground-val", version: 1, preset, tasks: n, samples: r,
 *   taskTypes: string[n], checkpoints: [{step, passRates: number[n]}]}` ordered by step (strictly increasing, each
 *   ≥ 1): the solved matrix (checkpoint × val task → pass rate). A pass rate is successes / r, so k/r for a whole
 *   k in
 *   0..r. Rewritten atomically at each validation.
 *
 * Every read validates with zod (own properties only); errors are `RecordError`s naming the file, the line (for
 * events.jsonl) and the field. Unknown keys: run.json drops them; events.jsonl keeps them (events gain fields, e.g.
 * new step metrics); val.json refuses them, since every writer (`emptyValRecord` + `addValidation`, and
 * scripts/revalidate.ts from a parsed record) writes exactly the keys above, so another key means the file was edited
 * or comes from a later format, which would carry another `version`.
 */
import { z } from 'zod';
import { RunConfigSchema, crossFieldIssues, type RunConfig } from './config';
import { jsonErrorWhere } from '../json-where';
import { counted } from '../count-text';
import { MODEL_SIZES } from '../model/config';

/** `format` of run.json. */
export const RUN_FORMAT = 'opd-playground-run';
/** `format` of val.json. */
export const VAL_FORMAT = 'opd-playground-val';
/** Version of run.json, events.jsonl lines and val.json this code writes and reads. */
export const RECORD_VERSION = 1;
/** File names inside a run directory. */
export const RUN_FILE = 'run.json',
  EVENTS_FILE = 'events.jsonl',
  VAL_FILE = 'val.json';
/** Matches a checkpoint's policy file name; group 1 is the step. */
export const CHECKPOINT_RE = /^ckpt-(\d+)\.safetensors$/;
/** Policy file of the checkpoint after step k. */
export const checkpointFile = (step: number): string => `ckpt-${step}.safetensors`;
/** State file (resuming) of the checkpoint after step k. */
export const stateFile = (step: number): string => `ckpt-${step}.state`;
/** A val task counts as solved at a checkpoint when its pass rate is at least this (half of its episodes). */
export const SOLVED_AT = 0.5;

/**
 * A record file that is missing a field, holds a bad value or is not JSON. `message` names file, line and field, then
 * the fix when one is given (`problem; fix`); `problem` is the message without the fix, for a caller that words a
 * fix of its own (experiment's run folders, a run file being unpacked).
 */
export class RecordError extends Error {
  readonly problem: string;
  constructor(problem: string, fix?: string) {
    super(fix === undefined ? problem : `${problem}; ${fix}`);
    this.name = 'RecordError';
    this.problem = problem;
  }
}

/** The fix of a run.json or val.json that cannot be read. */
const FILE_FIX = "restore it from a copy (such as the run's .opdrun file) or train the run again";
/** The fix of an events.jsonl line that cannot be read. */
const EVENTS_FIX = "repair or delete that line, or restore the file from a copy (such as the run's .opdrun file)";

const Nat = z.number().int().nonnegative();
const Rate = z.number().min(0).max(1);
const Versions = z.record(z.string(), z.string());
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 as 64 lowercase hex digits');

const RunSchema = z.object({
  format: z.literal(RUN_FORMAT),
  version: z.literal(RECORD_VERSION),
  config: z.unknown(),
  envVersions: Versions,
  command: z.string(),
  argv: z.array(z.string()),
  backend: z.string(),
  params: Nat,
  vocabSize: Nat,
  initWeights: z.string().nullable(),
  /** Hex sha256 of the weights the run began from (the shipped base or the --init file); absent for a fresh init. */
  initSha256: Sha256.optional(),
  createdAt: z.string(),
  resumes: z.array(z.object({ fromStep: Nat, steps: Nat, command: z.string(), at: z.string() })),
  fromRun: z
    .object({
      /** The source run: an absolute directory path (CLI) or a stored-run id (page); see the module comment. */
      dir: z.string(),
      valSha256: Sha256,
      student: z.object({ step: Nat, file: z.string(), sha256: Sha256 }),
      teachers: z.array(z.object({ step: Nat, file: z.string(), sha256: Sha256 })),
    })
    .optional(),
  /** An --init file of a smaller size grown into the config's model (core/model/grow.ts): its size and sha256. */
  grownFrom: z.object({ model: z.enum(MODEL_SIZES), sha256: Sha256 }).optional(),
});
/** run.json (module comment). */
export type RunRecord = Omit<z.infer<typeof RunSchema>, 'config'> & { config: RunConfig };

/** The means of the env's metrics besides the reward (rollout/evaluate.ts `MetricMeans`); absent: none. */
const MetricMeans = z.record(z.string(), z.number()).optional();
const SplitEvalSchema = z.object({
  successRate: Rate,
  episodes: Nat,
  byTaskType: z.record(z.string(), z.object({ successRate: Rate, episodes: Nat, metrics: MetricMeans })),
  metrics: MetricMeans,
});
/** Field checks of each event kind written to events.jsonl; other fields are kept as they are. */
const EVENT_SCHEMAS = {
  start: z.looseObject({
    event: z.literal('start'),
    config: z.record(z.string(), z.unknown()),
    backend: z.string(),
    params: Nat,
    envVersions: Versions,
    resumedFrom: Nat.optional(),
  }),
  step: z.looseObject({
    event: z.literal('step'),
    step: Nat.min(1),
    successRate: Rate,
    rewardMean: z.number(),
    policyLoss: z.number(),
  }),
  eval: z.looseObject({ event: z.literal('eval'), step: Nat, splits: z.record(z.string(), SplitEvalSchema) }),
  validation: z.looseObject({
    event: z.literal('validation'),
    step: Nat.min(1),
    samples: Nat.min(1),
    passRates: z.array(Rate),
    taskTypes: z.array(z.string()),
    successRate: Rate,
  }),
  checkpoint: z.looseObject({
    event: z.literal('checkpoint'),
    step: Nat.min(1),
    file: z.string(),
    stateFile: z.string(),
    sha256: z.strictObject({ weights: Sha256, state: Sha256 }).optional(),
  }),
  done: z.looseObject({ event: z.literal('done'), steps: Nat }),
} as const;
/** Event kinds events.jsonl holds. */
export type RecordEventKind = keyof typeof EVENT_SCHEMAS;
/** One validated events.jsonl line. */
export type RecordEvent = { [K in RecordEventKind]: z.infer<(typeof EVENT_SCHEMAS)[K]> }[RecordEventKind];

/** A val.json row. Pass rates are any numbers here (JSON's 1e999 reads as Infinity); `parseValRecord` checks them. */
const ValRowSchema = z.strictObject({
  step: Nat.min(1),
  passRates: z.array(z.custom<number>((x) => typeof x === 'number', 'expected a number')),
});
const ValSchema = z.strictObject({
  format: z.literal(VAL_FORMAT),
  version: z.literal(RECORD_VERSION),
  preset: z.string(),
  tasks: Nat,
  samples: Nat.min(1),
  taskTypes: z.array(z.string()),
  checkpoints: z.array(ValRowSchema),
});
/** val.json (module comment). */
export type ValRecord = z.infer<typeof ValSchema>;

/** "field.sub: message" of a zod error's first issue; an unknown key is named with the keys allowed there. */
function issue(e: z.ZodError, allowed: (path: readonly PropertyKey[]) => readonly string[] = () => []): string {
  const i = e.issues[0];
  const where = i.path.length ? i.path.join('.') : '(top level)';
  if (i.code === 'unrecognized_keys') {
    const keys = allowed(i.path);
    const named = i.keys.map((k) => JSON.stringify(k)).join(', ');
    const only = keys.length ? ` (only ${keys.join(', ')} belong there)` : '';
    return `${where}: unknown key${i.keys.length === 1 ? '' : 's'} ${named}${only}`;
  }
  return `${where}: ${i.message}`;
}

/** The keys a val.json object at `path` may hold: the record's at the top level, a row's inside `checkpoints`. */
const valKeys = (path: readonly PropertyKey[]): readonly string[] =>
  Object.keys(path.length ? ValRowSchema.shape : ValSchema.shape);

/**
 * Largest |rate·r − round(rate·r)| accepted, per unit of r, for a pass rate k/r written as JSON: JSON.stringify
 * writes the double k/r exactly, so rate·r is k up to a few ulps; 1e-6·r leaves room for tools that print fewer
 * digits.
 */
export const PASS_RATE_TOLERANCE = 1e-6;

function parseJson(text: string, file: string, fix: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new RecordError(`${file}: not valid JSON ${jsonErrorWhere(text) ?? `(${(e as Error).message})`}`, fix);
  }
}

/** Parse run.json text. @throws RecordError naming the bad field (the config's fields by name). */
export function parseRunRecord(text: string, file = RUN_FILE): RunRecord {
  const r = RunSchema.safeParse(parseJson(text, file, FILE_FIX));
  if (!r.success)
    throw new RecordError(
      `${file}: ${issue(r.error)} (expected an ${RUN_FORMAT} version ${RECORD_VERSION} record, as train ` +
        `--run-dir writes it; restore the file or train the run again)`,
    );
  const c = RunConfigSchema.safeParse(r.data.config);
  if (!c.success) throw new RecordError(`${file}: config.${issue(c.error)}`, FILE_FIX);
  const cross = crossFieldIssues(c.data);
  if (cross.length) throw new RecordError(`${file}: config.${cross[0].field}: ${cross[0].message}`, FILE_FIX);
  return { ...r.data, config: c.data };
}

/**
 * Parse events.jsonl text: one JSON object per non-empty line; known kinds (EVENT_SCHEMAS) are checked field by
 * field, lines of other kinds are skipped. @throws RecordError `events.jsonl line N: …` at the first bad line.
 */
export function parseEvents(text: string, file = EVENTS_FILE): RecordEvent[] {
  const out: RecordEvent[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${file} line ${i + 1}`;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      throw new RecordError(`${where}: not valid JSON (a cut or corrupt line)`, EVENTS_FIX);
    }
    if (
      typeof o !== 'object' ||
      o === null ||
      Array.isArray(o) ||
      !Object.hasOwn(o, 'event') ||
      typeof (o as { event: unknown }).event !== 'string'
    )
      throw new RecordError(`${where}: expected an object with an "event" name`, EVENTS_FIX);
    const kind = (o as { event: string }).event;
    if (!Object.hasOwn(EVENT_SCHEMAS, kind)) return;
    const r = EVENT_SCHEMAS[kind as RecordEventKind].safeParse(o);
    if (!r.success) throw new RecordError(`${where} (${kind} event): ${issue(r.error)}`, EVENTS_FIX);
    out.push(r.data as RecordEvent);
  });
  return out;
}

/**
 * Parse val.json text: the keys of the module comment and no others, `tasks` entries in taskTypes and in every row,
 * steps strictly increasing, and every pass rate k/samples for a whole k in 0..samples (within
 * PASS_RATE_TOLERANCE·samples).
 * @throws RecordError naming the file and the field; for a pass rate, the checkpoint's step, the val task (0-based,
 * as the coverage report numbers them), the value and the fix, e.g. `val.json: checkpoint 20, val task 5: pass rate
 * 0.3 is not k/2 for any whole k in 0..2 (samples 2; a pass rate is successes / samples); …`.
 */
export function parseValRecord(text: string, file = VAL_FILE): ValRecord {
  const r = ValSchema.safeParse(parseJson(text, file, FILE_FIX));
  if (!r.success)
    throw new RecordError(
      `${file}: ${issue(r.error, valKeys)} (expected an ${VAL_FORMAT} version ${RECORD_VERSION} record, ` +
        `as train --run-dir --val-tasks n writes it; restore the file or train the run again)`,
    );
  const v = r.data;
  if (v.taskTypes.length !== v.tasks)
    throw new RecordError(
      `${file}: taskTypes has ${counted(v.taskTypes.length, 'entry', 'entries')}, tasks is ${v.tasks}`,
    );
  const n = v.samples;
  const fix = (step: number) =>
    `the file was edited or written by another tool; restore it as train wrote it (the validation line of ` +
    `step ${step} in ${EVENTS_FILE} holds the run's pass rates) or train the run again`;
  v.checkpoints.forEach((c, i) => {
    if (c.passRates.length !== v.tasks)
      throw new RecordError(
        `${file}: checkpoints.${i} (step ${c.step}) has ${c.passRates.length} pass rates, tasks is ${v.tasks}`,
      );
    if (i > 0 && c.step <= v.checkpoints[i - 1].step)
      throw new RecordError(
        `${file}: checkpoints.${i}: steps must increase (${v.checkpoints[i - 1].step} then ${c.step})`,
      );
    c.passRates.forEach((rate, q) => {
      const at = `${file}: checkpoint ${c.step}, val task ${q}: pass rate ${rate}`;
      if (!(rate >= 0 && rate <= 1))
        throw new RecordError(`${at} is outside [0, 1] (a pass rate is successes / samples); ${fix(c.step)}`);
      if (Math.abs(rate * n - Math.round(rate * n)) > PASS_RATE_TOLERANCE * n)
        throw new RecordError(
          `${at} is not k/${n} for any whole k in 0..${n} (samples ${n}; a pass rate is successes / ` +
            `samples); ${fix(c.step)}`,
        );
    });
  });
  return v;
}

/** An empty val.json for a run (no checkpoint yet). */
export function emptyValRecord(
  cfg: Pick<RunConfig, 'preset' | 'valTasks' | 'valSamples'>,
  taskTypes: string[] = [],
): ValRecord {
  return {
    format: VAL_FORMAT,
    version: RECORD_VERSION,
    preset: cfg.preset,
    tasks: cfg.valTasks,
    samples: cfg.valSamples,
    taskTypes,
    checkpoints: [],
  };
}

/** val.json with the validation of `step` put in (a row of that step or later is replaced: a resumed run redoes it). */
export function addValidation(v: ValRecord, step: number, passRates: number[], taskTypes: string[]): ValRecord {
  if (passRates.length !== v.tasks || taskTypes.length !== v.tasks)
    throw new RecordError(`val.json: a validation of ${counted(passRates.length, 'task')} for a record of ${v.tasks}`);
  return {
    ...v,
    taskTypes: [...taskTypes],
    checkpoints: [...v.checkpoints.filter((c) => c.step < step), { step, passRates: [...passRates] }],
  };
}
