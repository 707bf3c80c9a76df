/**
 * `npm run play -- --env household --split train --task 7 [--preset easy] [--json]`: a person (or a script)
 * plays one task of an environment in the terminal.
 *
 * Text mode: prints the task, the observation and the numbered admissible actions, reads a line (an action, or
 * the number of an admissible action; empty lines are ignored), prints the result, and ends at `done`.
 * JSON mode (`--json`): one line `{"event":"reset",task,taskType,observation,admissibleActions}`, then for each
 * stdin line, as soon as it arrives, one line `{"event":"step",action,observation,reward,done,valid,
 * admissibleActions}` (every line, empty ones included, is an action; numbers are not resolved). Exits 0 at EOF or
 * `done`; exits 2 with a message naming the flag and its accepted values on bad flags.
 */
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { ENV_NAMES, getEnvSpec } from '../src/core/envs/registry';
import { SPLITS, type Env, type Split } from '../src/core/envs/types';
import { USAGE_EXIT_CODE, UsageError, parseArgs, usage } from './args';
import { exitOnClosedStdout } from './files';

/** Flags of `play`. */
export const PLAY_FLAGS = {
  env: { type: 'string', choices: ENV_NAMES, default: 'household', help: 'environment' },
  preset: { type: 'string', help: 'environment preset (default easy, as train and eval)' },
  split: { type: 'string', choices: SPLITS, default: 'train', help: 'task split' },
  task: { type: 'int', min: 0, default: 0, help: 'task index in the split' },
  json: { type: 'boolean', help: 'JSON lines on stdin/stdout instead of text' },
  help: { type: 'boolean', help: 'print this help' },
} as const;

/** Where `play` reads and writes (process streams in the CLI, arrays in tests). */
export interface PlayIO {
  /** Input lines, consumed one at a time as they arrive. */
  lines: AsyncIterable<string>;
  /** Write to stdout. */
  write(text: string): void;
  /** Write to stderr. */
  error(text: string): void;
}

function numbered(actions: readonly string[]): string {
  return ['Admissible actions:', ...actions.map((a, i) => `  ${String(i + 1).padStart(2)}. ${a}`)].join('\n');
}

/**
 * Run one play session. Returns the exit code: 0 (done or end of input), 2 (bad flags; message on `io.error`).
 */
export async function play(argv: readonly string[], io: PlayIO): Promise<number> {
  let env: Env;
  let args;
  try {
    args = parseArgs(argv, PLAY_FLAGS);
    if (args.help) {
      io.write(`${usage('npm run play --', PLAY_FLAGS)}\n`);
      return 0;
    }
    const spec = getEnvSpec(args.env);
    const preset = args.preset ?? (spec.presets.includes('easy') ? 'easy' : spec.presets[0]);
    if (!spec.presets.includes(preset)) {
      throw new UsageError(`--preset must be one of: ${spec.presets.join(', ')} (got "${preset}")`, 'preset');
    }
    env = spec.create(preset);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.error(`play: ${e.message}\n${usage('npm run play --', PLAY_FLAGS)}\n`);
    return USAGE_EXIT_CODE;
  }
  const json = args.json;
  const first = env.reset({ split: args.split as Split, index: args.task });
  let actions = env.admissibleActions();
  if (json) {
    io.write(`${JSON.stringify({ event: 'reset', ...first, admissibleActions: actions })}\n`);
  } else {
    io.write(`Task: ${first.task}\n\n${first.observation}\n\n${numbered(actions)}\n> `);
  }
  let reward = 0, success = false, done = false;
  for await (const line of io.lines) {
    let action = line;
    if (!json) {
      if (line.trim() === '') {
        io.write('> ');
        continue;
      }
      const n = /^\s*\d+\s*$/.test(line) ? Number(line) : NaN;
      if (n >= 1 && n <= actions.length) action = actions[n - 1];
    }
    const before = actions;
    const r = env.step(action);
    actions = env.admissibleActions();
    reward += r.reward;
    success ||= r.success;
    done = r.done;
    const hint = r.valid ? null : commandHint(action, before);
    if (json) {
      const { observation, reward, done, valid } = r;
      io.write(`${JSON.stringify({ event: 'step', action, observation, reward, done, valid, admissibleActions: actions, ...(hint ? { hint } : {}) })}\n`);
    } else {
      io.write(`${action === line ? '' : `Action: ${action}\n`}${r.observation}\n${hint ? `(${hint})\n` : ''}`);
      if (r.done) {
        const end = r.success ? `Task complete: reward ${r.reward}` : 'Out of steps: task not completed, reward 0';
        io.write(`\n${end} (${env.steps}/${env.maxSteps} steps).\n`);
      } else {
        io.write(`\n${numbered(actions)}\n(step ${env.steps}/${env.maxSteps})\n> `);
      }
    }
    if (r.done) break;
  }
  // The end of the episode or of the input: a summary line (JSON: a summary event).
  if (json) io.write(`${JSON.stringify({ event: 'summary', steps: env.steps, maxSteps: env.maxSteps, success, reward, done })}\n`);
  else if (!done) io.write(`\nEnd of input after ${env.steps}/${env.maxSteps} steps: task not completed, reward ${reward}.\n`);
  return 0;
}

/**
 * Why an inadmissible action did nothing, when its command is not one the environment offers at this step (e.g.
 * `examine` on household/easy, which has no information-only commands): names the commands it does offer.
 */
export function commandHint(action: string, admissible: readonly string[]): string | null {
  const verb = (a: string) => (a.trim().toLowerCase().match(/^(go to|[a-z]+)/)?.[1] ?? '');
  const offered = [...new Set(admissible.map(verb))];
  const v = verb(action);
  if (!v || offered.includes(v)) return null;
  return `there is no "${v}" command here; the commands now are: ${offered.join(', ')}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  exitOnClosedStdout();
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  const code = await play(process.argv.slice(2), {
    lines: rl,
    write: (s) => process.stdout.write(s),
    error: (s) => process.stderr.write(s),
  });
  rl.close();
  process.exitCode = code;
}
