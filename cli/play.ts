/**
 * `npm run play -- [--env ENV] --split train --task 7 [--preset P] [--seed S] [--json]`: a person (or a
 * script) plays one task of an environment in the terminal (src/core/envs/play.ts).
 *
 * Text mode: prints one line on how to type (`START_LINE`: an action, or the number of a listed one; Ctrl-D, the end
 * of input, ends), the task, the observation and the numbered admissible actions, reads a line (an action, or
 * the number of an admissible action; empty lines are skipped and cost no step, and a number outside 1..N gets a
 * message giving the range and costs no step: core `readTyped`; so does a line over 2 000 characters; an open form
 * such as shop's `search[`, listed as `search[…]`, typed or picked with nothing inside gets the message `--json`'s
 * hint gives (core `openFormHint`: complete it with one's own words and a closing `]`, with the example of the env's
 * command form, `CommandForm.example`), and costs no step; words typed
 * after it with no closing `]` are played with it added, `Action: search[red shoes]`, as on the page: core
 * `closeOpenForm`), prints the result, and ends at `done`. An action that
 * does nothing also gets a hint in parentheses: whether it is a command of the preset at all (listing the commands it
 * has), fits its command's form, or is not possible now, with the admissible actions (src/core/envs/hint.ts). The end
 * of the episode or of the input prints a summary line: steps, success, total reward, invalid actions.
 * JSON mode (`--json`): JSON lines both ways. Output: one line `{"event":"reset",task,taskType,split,index,
 * observation,admissibleActions}` (`split` and `index`: the task played, as `--split` and `--task` name it, also when
 * `--seed` drew it), then for each input line, as soon as it arrives, one line `{"event":"step",action,observation,
 * reward,done,valid,admissibleActions[,hint]}` (`hint`: why an invalid action did nothing, core `commandHint`; an open
 * form sent as listed, `search[`, is an invalid step whose hint says to complete it), and at the end
 * `{"event":"summary",steps,maxSteps,success,reward,invalid,done,text}`. Input: one JSON object `{"action":"…"}` per
 * line (the action as text; numbers are not resolved, open forms not closed; `{"action":""}` is an invalid step);
 * blank lines are skipped; a line that is not such an object (or is over
 * 2 000 characters) gets `{"event":"error",line,message}` and costs no step; its message, and `--help`, show an input
 * line of the chosen env (`exampleLine`: its expert's first action on train task 0). Exits 0 at EOF or `done`; exits 2
 * with a message naming the flag and its accepted values on bad flags, when both --task and --seed are given (each
 * chooses the task), and for a train --task past TRAIN_TASK_INDICES (those indices are split val's tasks).
 */
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { SPLITS, TRAIN_TASK_INDICES, normalizeAction, type Split } from '../src/core/envs/types';
import { isOpenAction, type CommandForm } from '../src/core/envs/types';
import { getEnvSpec } from '../src/core/envs/registry';
import { openFormHint } from '../src/core/envs/hint';
import { z } from 'zod';
import { PlayEpisode, closeOpenForm, randomTaskIndex, readTyped, summaryText } from '../src/core/envs/play';
import type { PlayView } from '../src/core/envs/play';
import { USAGE_EXIT_CODE, UsageError, parseArgs, usage } from './args';
import { ENV_FLAG, PRESET_FLAG, envAndPreset } from './env-flags';
import { exampleAction } from './example-action';
import { exitOnClosedStdout } from './files';

/** Flags of `play`. */
export const PLAY_FLAGS = {
  env: ENV_FLAG,
  preset: PRESET_FLAG,
  split: { type: 'string', choices: SPLITS, default: 'train', help: 'task split' },
  task: { type: 'int', min: 0, help: 'task index in the split (0 when neither --task nor --seed is given)' },
  seed: {
    type: 'int',
    help: 'play a random task drawn from this seed instead of --task (the same seed, the same task); not with --task',
  },
  json: {
    type: 'boolean',
    help:
      'JSON lines both ways: read one {"action":"…"} object per line (blank lines skipped; a bad ' +
      'line gets an {"event":"error"} line and costs no step), write reset (task, taskType, split, index, ' +
      'observation, admissibleActions), step and summary events; each action is played as sent, as ' +
      "npm run serve's /step plays it: numbers are not resolved, open forms such as search[ not closed or held back",
  },
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

/** Text mode's first line: how to type an action, and how to end (Ctrl-D: the end of input). */
export const START_LINE = 'Type an action, or the number of a listed one; Ctrl-D ends.';

/** Longest input line played (as `npm run serve`'s `/step` action); a longer one is refused and costs no step. */
export const MAX_LINE_CHARS = 2000;

/** One `--json` input line: the action as text. */
const jsonLineSchema = z.object({ action: z.string() }).strict();

/**
 * A `--json` input line of the env for examples: `{"action":…}` with the expert's first action on task 0 of the
 * preset's train split (`exampleAction`: an action of that env, an open form with its own words). @throws Error for
 * an unknown env or preset.
 */
export function exampleLine(env: string, preset: string): string {
  return JSON.stringify({ action: exampleAction(env, preset) });
}

/**
 * The action of a `--json` input line, or why the line is not one (for its error event), with `example`
 * (`exampleLine`) as the line to send.
 */
function jsonAction(line: string, example: string): { action: string } | { message: string } {
  let value: unknown;
  try {
    value = JSON.parse(line.replace(/^\uFEFF/, '')); // a byte order mark may be ignored (RFC 8259 §8.1)
  } catch {
    return { message: `not JSON; send one object per line, e.g. ${example}` };
  }
  const r = jsonLineSchema.safeParse(value);
  if (r.success) return { action: r.data.action };
  return { message: `expected an object with only a text "action", e.g. ${example}` };
}

/** `--help` for `--env` (with `--preset`, when one of its presets): --json's help with an input line of that env. */
function helpFor(env: string, preset: string | undefined): string {
  const spec = getEnvSpec(env);
  const line = exampleLine(env, preset !== undefined && spec.presets.includes(preset) ? preset : spec.defaultPreset);
  const json = { ...PLAY_FLAGS.json, help: `${PLAY_FLAGS.json.help}; e.g. ${line} (with --env ${env})` };
  return usage('npm run play --', { ...PLAY_FLAGS, json });
}

/** An admissible action as the list shows it: an open form (`search[`, rollout/trie.ts) as `search[…]`. */
function listed(action: string): string {
  return isOpenAction(action) ? `${action}…]` : action;
}

function numbered(actions: readonly string[]): string {
  return ['Admissible actions:', ...actions.map((a, i) => `  ${String(i + 1).padStart(2)}. ${listed(a)}`)].join('\n');
}

/**
 * Text mode: a line that is an admissible open form with nothing after it (`search[`, typed or picked by number)
 * is not played (it would do nothing and cost a step); the message is the hint `--json` gets for the same action
 * (core `openFormHint`): an open form to complete with one's own words and a closing `]`, with the example the env's
 * command form of that verb gives (`CommandForm.example`: `e.g. search[red shoes]` on a store, `e.g. answer[Silver
 * Vale]` on a QA env), or none when the env gives none. Null for any other line (it is played).
 */
export function bareOpenForm(
  action: string,
  admissible: readonly string[],
  forms: readonly CommandForm[],
): { message: string } | null {
  const a = normalizeAction(action);
  if (!isOpenAction(a) || !admissible.includes(a)) return null;
  return { message: openFormHint(a, forms) };
}

/**
 * What `play` writes first: in JSON mode the reset event (`{"event":"reset",task,taskType,split,index,observation,
 * admissibleActions}`, one line); in text mode `START_LINE`, the task (with its index and split when `seed` drew
 * it), the observation, the numbered admissible actions and the prompt `> `.
 */
function startText(first: PlayView, json: boolean, seed: number | undefined): string {
  const { task, taskType, split, index, observation, admissible } = first;
  if (json) {
    const reset = { event: 'reset', task, taskType, split, index, observation, admissibleActions: admissible };
    return `${JSON.stringify(reset)}\n`;
  }
  const from = seed === undefined ? '' : ` (task ${index} of ${split}, drawn from seed ${seed})`;
  return `${START_LINE}\n\nTask: ${task}${from}\n\n${observation}\n\n${numbered(admissible)}\n> `;
}

/**
 * Plays one task. Returns the exit code: 0 (done or end of input), 2 (bad flags; message on `io.error`).
 */
export async function play(argv: readonly string[], io: PlayIO): Promise<number> {
  let episode: PlayEpisode;
  let forms: readonly CommandForm[];
  let args;
  try {
    args = parseArgs(argv, PLAY_FLAGS);
    if (args.help) {
      io.write(`${helpFor(args.env, args.preset)}\n`);
      return 0;
    }
    const { preset } = envAndPreset(args.env, args.preset);
    if (args.seed !== undefined && args.task !== undefined) {
      throw new UsageError(
        `--task ${args.task} and --seed ${args.seed} both choose the task (--seed draws one at random); ` +
          `give only one of them`,
        'seed',
      );
    }
    const index = args.seed === undefined ? (args.task ?? 0) : randomTaskIndex(args.seed);
    if (args.split === 'train' && index >= TRAIN_TASK_INDICES)
      throw new UsageError(
        `--task ${index} is past split train's tasks (0 to ${TRAIN_TASK_INDICES - 1}; the indices from ` +
          `${TRAIN_TASK_INDICES} on are split val's): give a smaller --task, or --split val --task ` +
          `${index - TRAIN_TASK_INDICES} for that val task`,
        'task',
      );
    episode = new PlayEpisode({ env: args.env, preset, split: args.split as Split, index });
    forms = getEnvSpec(args.env).commands?.(preset) ?? [];
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.error(`play: ${e.message}\n${usage('npm run play --', PLAY_FLAGS)}\n`);
    return USAGE_EXIT_CODE;
  }
  const json = args.json;
  const first = episode.view();
  const example = json ? exampleLine(args.env, first.preset) : '';
  let actions = first.admissible;
  const max = first.summary.maxSteps;
  io.write(startText(first, json, args.seed));
  let lineNo = 0;
  for await (const line of io.lines) {
    lineNo++;
    if (line.trim() === '') {
      if (!json) io.write('> ');
      continue;
    }
    const read =
      line.length > MAX_LINE_CHARS
        ? { message: `the line is ${line.length} characters, over ${MAX_LINE_CHARS}; type a shorter action` }
        : json
          ? jsonAction(line, example)
          : readTyped(line, actions);
    const typed = !json && 'action' in read ? (bareOpenForm(read.action, actions, forms) ?? read) : read;
    if ('message' in typed) {
      // Nothing is played: the same state, the same actions.
      io.write(
        json
          ? `${JSON.stringify({ event: 'error', line: lineNo, message: typed.message })}\n`
          : `(${typed.message})\n> `,
      );
      continue;
    }
    // Text mode, as the page: words after an open form such as search[ get the closing ] when left out.
    const action = json ? typed.action : closeOpenForm(typed.action, actions);
    const t = episode.step(action);
    actions = episode.admissible();
    if (json) {
      const { observation, reward, done, valid, hint } = t;
      const step = { event: 'step', action, observation, reward, done, valid, admissibleActions: actions };
      io.write(`${JSON.stringify({ ...step, ...(hint ? { hint } : {}) })}\n`);
    } else {
      io.write(`${action === line ? '' : `Action: ${action}\n`}${t.observation}\n${t.hint ? `(${t.hint})\n` : ''}`);
      if (!t.done) io.write(`\n${numbered(actions)}\n(step ${episode.summary().steps}/${max})\n> `);
    }
    if (t.done) break;
  }
  // The end of the episode or of the input: a summary line (JSON: a summary event).
  const s = episode.summary();
  const text = summaryText(s, 'input');
  if (json) io.write(`${JSON.stringify({ event: 'summary', ...s, text })}\n`);
  else io.write(`\n${text}\n`);
  return 0;
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
