/**
 * The flags of `npm run train` (cli/train.ts): one per run-config field whose schema metadata names a `flag`
 * (src/core/run/config.ts), typed by the field's JSON Schema, plus train's own flags (output, run directory, resume,
 * evaluation threads); the `--help` text grouped as in the page; and `fail`, the usage-error exit (code 2).
 */
import { USAGE_EXIT_CODE, numberError, wrapHanging, type FlagTable } from './args';
import { NODE_BACKENDS } from './backend';
import { defaultEvalThreads } from './eval-pool';
import {
  DEFAULT_CONFIG,
  FIELD_GROUPS,
  RUN_CONFIG_KEYS,
  algorithmsUsing,
  defaultFor,
  describeField,
  fieldMeta,
  fieldSchema,
  fieldsOfGroup,
  isRunConfigKey,
  type RunConfigKey,
} from '../src/core/run/config';
import { ENV_NAMES } from '../src/core/envs/registry';

/** Flags of the run-config fields: one per schema field whose metadata names a `flag` (src/core/run/config.ts). */
export const CONFIG_FLAGS: FlagTable = {};
/** RunConfig field of each such flag. */
export const FIELD: Record<string, RunConfigKey> = {};
for (const key of RUN_CONFIG_KEYS) {
  const { flag, help } = fieldMeta(key);
  if (!flag) continue;
  FIELD[flag] = key;
  const j = fieldSchema(key);
  // Ranges are left to the schema; `rangeIssue` words its out-of-range issues as every CLI words a range error.
  if (key === 'init') CONFIG_FLAGS[flag] = { type: 'string', help: `${help} (base | scratch | PATH)` };
  else if (key === 'backend') CONFIG_FLAGS[flag] = { type: 'string', help, default: 'wasm', choices: NODE_BACKENDS };
  else if (j.type === 'integer') CONFIG_FLAGS[flag] = { type: 'int', help };
  else if (j.type === 'number') CONFIG_FLAGS[flag] = { type: 'float', help };
  else if (j.type === 'boolean') CONFIG_FLAGS[flag] = { type: 'boolean', help, default: j.default === true };
  else CONFIG_FLAGS[flag] = { type: 'string', help, ...(j.enum ? { choices: j.enum } : {}) };
}

/** Flags of `train` that are not run settings. */
export const OTHER_FLAGS = {
  save: { type: 'string', help: 'write the final weights (safetensors) to this path' },
  'save-best': {
    type: 'string',
    help:
      'write the weights of the best evaluation so far (mean success over test-seen and test-unseen; ' +
      'the step-0 evaluation counts; ties keep the earlier) to this path, at each new best; needs ' +
      '--eval-every > 0',
  },
  json: { type: 'boolean', help: 'print one JSON object per line' },
  'run-dir': {
    type: 'string',
    help:
      'write the run record into this new (or empty) folder: run.json, events.jsonl, checkpoints ' +
      'ckpt-<k>.safetensors + ckpt-<k>.state every --checkpoint-every steps and at the last step, ' +
      'val.json with --val-tasks (format: src/core/run/record.ts)',
  },
  'from-run': {
    type: 'string',
    help:
      'with --algo agentic-opd: the GRPO run directory to distil from (its best-validation checkpoint ' +
      'is the student, its other checkpoints the teachers; needs ≥ 2 checkpoints and val.json from ' +
      '--val-tasks). Exit 2, nothing written, when a checkpoint is missing, corrupt or of another ' +
      'model, vocabulary or environment version, or when the student already solves every val task ' +
      'some checkpoint solves (nothing to distil). --resume of the stage refuses a source whose files ' +
      'changed (sha256 in run.json)',
  },
  resume: {
    type: 'string',
    help:
      'continue the run in this run directory from its latest checkpoint with its recorded config ' +
      '(run-setting flags must match it; --steps may extend the run, not shorten its plan); appends to its ' +
      'events.jsonl. ' +
      'Exit 2, nothing written, when the config in run.json differs from the one the run started with ' +
      '(the start line of events.jsonl) or the files of the checkpoint differ from the sha256 its ' +
      'events.jsonl line records',
  },
  force: {
    type: 'boolean',
    help:
      'with --run-dir or --resume: break the lock another train holds on the run directory (DIR/train.lock: ' +
      'one writer at a time), with a warning; meant for a train that has ended (e.g. on another host): one that ' +
      'still runs stops at its next write of the run (exit 1) and this train writes the record',
  },
  'eval-threads': {
    type: 'int',
    help:
      `worker threads that run evaluations (test-seen and test-unseen at once, beside the next ` +
      `training step; the same numbers as in the training thread); 0 = evaluate in the training ` +
      `thread; default ${defaultEvalThreads()} here (2 when the machine has ≥ 2 cores, else 0)`,
    default: defaultEvalThreads(),
    min: 0,
    max: 2,
  },
  profile: {
    type: 'boolean',
    help:
      "report where each step's time goes (sampling, environment, old/ref scoring, algorithm, update, " +
      'KL guard; evaluation in its own line); with --json, step events carry phaseMs',
  },
  help: { type: 'boolean', help: 'show this help' },
} as const satisfies FlagTable;

/** Every flag of `train`: the run settings' and its own. */
export const SPEC: FlagTable = { ...CONFIG_FLAGS, ...OTHER_FLAGS };

/** What a flag accepts, in words: the schema's description, or the CLI's own for --init and --backend. */
export function acceptedOf(flag: string): string {
  const key = FIELD[flag];
  if (key === 'init')
    return (
      'base (the shipped base policy), scratch (a fresh seeded init) or the path of a .safetensors ' +
      'file written by --save'
    );
  if (key === 'backend') return `one of ${NODE_BACKENDS.join(', ')}`;
  return describeField(key);
}

/**
 * The default of a run setting as `--help` says it: `default 0.5`, `default "" (empty)`, or, for a setting whose
 * default is the env's own (`defaultFor`, src/core/run/config.ts: the preset, the longest action), each registered
 * env's in registry order, e.g. `default: the env's (<env A> 12, <env B> 20, …)`.
 */
export function defaultText(key: RunConfigKey): string {
  if (key === 'backend') return 'default wasm';
  const shown = (d: unknown) => (d === '' ? '"" (empty)' : String(d));
  const perEnv = ENV_NAMES.map((env) => [env, shown(defaultFor(key, env))] as const);
  if (perEnv.every(([, d]) => d === perEnv[0][1])) return `default ${shown(DEFAULT_CONFIG[key])}`;
  return `default: the env's (${perEnv.map(([env, d]) => `${env} ${d}`).join(', ')})`;
}

/** `--help`: the run settings grouped as in the page (schema order), then the other flags. */
export function helpText(): string {
  const w = Math.max(...Object.keys(SPEC).map((f) => f.length)) + 2;
  const pad = ' '.repeat(w + 4);
  const lines = [
    'usage: npm run train -- [flags]',
    '',
    'Every run setting (src/core/run/config.ts): label — meaning;',
    'accepted values, default, unit, symbol, recommended value.',
  ];
  for (const group of FIELD_GROUPS) {
    const keys = fieldsOfGroup(group).filter((k) => fieldMeta(k).flag);
    if (!keys.length) continue;
    // The internal group's flagged settings are the run record's (the page keeps no run directory).
    lines.push('', group === 'internal' ? 'run record (with --run-dir):' : `${group}:`);
    for (const key of keys) {
      const m = fieldMeta(key);
      const flag = m.flag!;
      const facts = [`accepted: ${acceptedOf(flag)}`, defaultText(key)];
      if (m.unit) facts.push(`unit: ${m.unit}`);
      if (m.symbol) facts.push(`symbol: ${m.symbol}`);
      if (m.recommended) facts.push(`recommended: ${m.recommended}`);
      lines.push(
        wrapHanging(`  --${flag.padEnd(w)}${m.label} — ${m.help}`, w + 4),
        wrapHanging(`${pad}${facts.join('; ')}`, w + 4),
      );
    }
  }
  lines.push('', 'output:');
  for (const [flag, f] of Object.entries(OTHER_FLAGS)) lines.push(wrapHanging(`  --${flag.padEnd(w)}${f.help}`, w + 4));
  return lines.join('\n');
}

/**
 * The run-config fields set by parsed `train` flags (`FIELD`), by field name, for `parseRunConfig`; `init` is left
 * out (it also takes a weights path, which train reads itself).
 */
export function configFieldsOf(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const partial: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(FIELD))
    if (args[flag] !== undefined && field !== 'init') partial[field] = args[flag];
  return partial;
}

/** The flag of a run-config field (`--tasks` for tasksPerStep), or the field name when it has none. */
export function flagOf(field: string): string {
  const flag = isRunConfigKey(field) ? fieldMeta(field).flag : undefined;
  return flag ? `--${flag}` : field;
}

/** Flags (without `--`) written on the command line `argv`, in either form (`--name value`, `--name=value`). */
export function givenFlags(argv: readonly string[]): Set<string> {
  return new Set(argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]));
}

/**
 * One line per run-setting flag written in `argv` that the run's algorithm `algo` does not read
 * (`algorithmsUsing`, src/core/run/config.ts), naming the flag, the algorithms that read it and the fix; empty when
 * there is none. Only flags given explicitly count: defaults are not flags.
 */
export function ignoredFlagIssues(argv: readonly string[], algo: string): string[] {
  const out: string[] = [];
  for (const flag of givenFlags(argv)) {
    const key = Object.hasOwn(FIELD, flag) ? FIELD[flag] : undefined;
    const users = key === undefined ? undefined : algorithmsUsing(key);
    if (!users || users.includes(algo as never)) continue;
    const names = users.map((a) => `--algo ${a}`).join(' or ');
    out.push(`--${flag} is read only by ${names}; --algo ${algo} ignores it. Drop --${flag}, or use ${names}`);
  }
  return out;
}

/** The run-config fields only the `http` analyzer reads (src/core/analyzer/index.ts passes them to it alone). */
export const HTTP_ANALYZER_FIELDS = ['analyzerUrl', 'analyzerModel', 'analyzerTimeoutMs'] as const;

/**
 * One line per flag of an `HTTP_ANALYZER_FIELDS` field written in `argv` while the run's algorithm uses an analyzer
 * that is not `http` (`config.analyzer`: the flag's, the default or, on --resume, the run's), naming the flag, the
 * analyzer and the fix, as `ignoredFlagIssues` words a flag of another algorithm; empty when there is none. An
 * algorithm without an analyzer is left to `ignoredFlagIssues`.
 */
export function analyzerFlagIssues(
  argv: readonly string[],
  config: { algo: string; analyzer: string },
  resumed = false,
): string[] {
  if (config.analyzer === 'http' || !algorithmsUsing('analyzer')?.includes(config.algo as never)) return [];
  const given = givenFlags(argv);
  const which = given.has('analyzer') ? '' : resumed ? " (the run's)" : ' (the default)';
  return HTTP_ANALYZER_FIELDS.flatMap((field) => {
    const flag = fieldMeta(field).flag!;
    if (!given.has(flag)) return [];
    return [
      `--${flag} is read only by --analyzer http; --analyzer ${config.analyzer}${which} ignores it. Drop ` +
        `--${flag}, or use --analyzer http`,
    ];
  });
}

/** The text given to `--flag` in `argv` (its last occurrence, `--flag value` or `--flag=value`), or undefined. */
export function givenValue(argv: readonly string[], flag: string): string | undefined {
  let out: string | undefined;
  argv.forEach((a, i) => {
    if (a.startsWith(`--${flag}=`)) out = a.slice(flag.length + 3);
    else if (a === `--${flag}` && i + 1 < argv.length) out = argv[i + 1];
  });
  return out;
}

/**
 * The message for a run setting given on the command line as a number outside the schema's range, worded as every
 * CLI words a range error (`numberError`, cli/args.ts): the flag, the accepted range (`describeField`), the text
 * given and the fix, e.g. `--steps must be an integer in [1, 100000], got "-1"; give e.g. --steps 50 (the default)`.
 * Undefined when `field` has no flag, is no number setting, or `value` is within its range (then the schema's own
 * message stands).
 */
export function rangeIssue(field: string, value: unknown, argv: readonly string[]): string | undefined {
  if (!isRunConfigKey(field) || typeof value !== 'number') return undefined;
  const flag = fieldMeta(field).flag;
  const j = fieldSchema(field);
  const def = DEFAULT_CONFIG[field];
  if (!flag || (j.type !== 'integer' && j.type !== 'number') || typeof def !== 'number') return undefined;
  if ((j.minimum === undefined || value >= j.minimum) && (j.maximum === undefined || value <= j.maximum))
    return undefined;
  return numberError(flag, describeField(field), givenValue(argv, flag) ?? String(value), def, true);
}

/** Prints `train: <msg>` on stderr and exits with the usage exit code (2). */
export function fail(msg: string): never {
  process.stderr.write(`train: ${msg}\n`);
  process.exit(USAGE_EXIT_CODE);
}
