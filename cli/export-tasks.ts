/**
 * `npm run export-tasks -- --out DIR [--env ENV] [--preset P] [--train N] [--test N] [--val N]`: an env's task splits
 * as JSONL files for trainers outside the page (docs/scale-out.md): `DIR/<env>-<preset>/<split>.jsonl` for train,
 * test-seen, test-unseen and val, one row per task address, tasks 0 … N − 1 of the split (the playground evaluates
 * on the first tasks of each split, and draws training tasks from train indices).
 *
 * A row has the columns verl-agent's preprocessors write (`examples/data_preprocess/prepare.py`, text mode:
 * `data_source`, `prompt`, `ability`, `extra_info` {split, index}; `preprocess_search_r1_dataset.py`: `env_kwargs`,
 * which verl-agent's rollout loop hands to the env manager's `reset`) and which TRL's GRPOTrainer passes to an
 * `environment_factory` env's `reset(**row)`:
 *
 *   {"data_source": "<env>-<preset>", "prompt": [{"role": "user", "content": ""}], "ability": "agent",
 *    "extra_info": {"split", "index", "task", "task_type"}, "env_kwargs": {"env", "preset", "split", "index"}}
 *
 * The prompt is empty as in verl-agent's text mode: the env manager (or the TRL env's `reset`) writes the prompt from
 * the observation. Rows are written in index order; the same flags write the same bytes. Exits 2 naming the flag on
 * bad flags.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SPLITS, type Split } from '../src/core/envs/types';
import { USAGE_EXIT_CODE, UsageError, parseArgs, usage } from './args';
import { ENV_FLAG, PRESET_FLAG, envAndPreset } from './env-flags';
import { writeAtomic } from './files';

/** Flags of `export-tasks`. */
export const EXPORT_FLAGS = {
  out: { type: 'string', required: true, help: 'folder to write <env>-<preset>/<split>.jsonl into' },
  env: ENV_FLAG,
  preset: PRESET_FLAG,
  train: { type: 'int', min: 0, max: 1_000_000, default: 10_000, help: 'rows of the train split (tasks 0 … N-1)' },
  test: { type: 'int', min: 0, max: 1_000_000, default: 200, help: 'rows of each test split (test-seen, test-unseen)' },
  val: { type: 'int', min: 0, max: 1_000_000, default: 200, help: 'rows of the val split' },
  help: { type: 'boolean', help: 'print this help' },
} as const;

/** One JSONL row (see the module doc). */
export interface TaskRow {
  data_source: string;
  prompt: { role: 'user'; content: string }[];
  ability: 'agent';
  extra_info: { split: Split; index: number; task: string; task_type: string };
  env_kwargs: { env: string; preset: string; split: Split; index: number };
}

/** The rows of tasks 0 … n − 1 of `split` of env `env` / `preset` (each task generated for its line and type). */
export function taskRows(env: string, preset: string, split: Split, n: number): TaskRow[] {
  const { spec } = envAndPreset(env, preset);
  const e = spec.create(preset);
  return Array.from({ length: n }, (_, index) => {
    const r = e.reset({ split, index });
    return {
      data_source: `${env}-${preset}`,
      prompt: [{ role: 'user', content: '' }],
      ability: 'agent',
      extra_info: { split, index, task: r.task, task_type: r.taskType },
      env_kwargs: { env, preset, split, index },
    };
  });
}

/**
 * Creates `dir` and its missing parents one level at a time (Node's recursive mkdirSync can spin forever under
 * /proc). @throws Error (with the system's `code`) when a level cannot be created or a parent is not a folder.
 */
function makeFolders(dir: string): void {
  const missing: string[] = [];
  let d = resolve(dir);
  while (!existsSync(d)) {
    missing.unshift(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing) mkdirSync(m);
}

/** Where `export-tasks` writes (process streams in the CLI, strings in tests). */
export interface ExportIO {
  write(text: string): void;
  error(text: string): void;
}

/** Writes the files. Returns the exit code: 0, or 2 on bad flags (message on `io.error`). */
export function exportTasks(argv: readonly string[], io: ExportIO): number {
  let args;
  let preset: string;
  if (argv.includes('--help')) {
    io.write(`${usage('npm run export-tasks --', EXPORT_FLAGS)}\n`);
    return 0;
  }
  try {
    args = parseArgs(argv, EXPORT_FLAGS);
    if (args.out.trim() === '') throw new UsageError('--out must name a folder (got an empty string)');
    preset = envAndPreset(args.env, args.preset).preset;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.error(`export-tasks: ${e.message}\n${usage('npm run export-tasks --', EXPORT_FLAGS)}\n`);
    return USAGE_EXIT_CODE;
  }
  const dir = join(args.out, `${args.env}-${preset}`);
  try {
    makeFolders(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    io.error(`export-tasks: --out: cannot create the folder "${dir}" (${code}); give a folder you can write to\n`);
    return USAGE_EXIT_CODE;
  }
  const rows: Record<Split, number> = {
    train: args.train,
    'test-seen': args.test,
    'test-unseen': args.test,
    val: args.val,
  };
  for (const split of SPLITS) {
    const lines = taskRows(args.env, preset, split, rows[split]).map((r) => `${JSON.stringify(r)}\n`);
    const file = join(dir, `${split}.jsonl`);
    writeAtomic(file, lines.join(''));
    io.write(`${file}: ${lines.length} rows\n`);
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = exportTasks(process.argv.slice(2), {
    write: (s) => process.stdout.write(s),
    error: (s) => process.stderr.write(s),
  });
}
