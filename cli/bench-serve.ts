/**
 * `npm run bench:serve -- [--env ENV] [--preset P] [--envs 128] [--episodes 10000] [--json]`: the environment
 * server's load figure (docs/scale-out.md). Starts `npm run serve` in a process of its own (node `--expose-gc`, so
 * `/health` reports the heap after a full collection) and keeps `--envs` environments busy at once from this process:
 * each one creates an environment, resets it to the next train task, steps it with actions drawn from its admissible
 * list (an open form completed with the task's first words; a seeded draw per environment, src/core/rng.ts) until
 * done, closes it, and starts over — `--episodes` episodes in all, so the pool sees as many creates and closes.
 *
 * Prints a line per 1 000 episodes: episodes, environment steps, steps/s since the start, and the server's resident
 * set and heap (MiB); then a summary line (steps/s, and requests/s counting each episode's create, reset and
 * close). `--json`: one JSON object per line instead. A figure of the machine it ran
 * on: not a test (nothing is asserted).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { isOpenAction } from '../src/core/envs/types';
import { Rng } from '../src/core/rng';
import { USAGE_EXIT_CODE, UsageError, parseArgs, usage } from './args';
import { ENV_FLAG, PRESET_FLAG, envAndPreset } from './env-flags';

/** Flags of `bench:serve`. */
export const BENCH_SERVE_FLAGS = {
  env: ENV_FLAG,
  preset: PRESET_FLAG,
  envs: { type: 'int', min: 1, max: 4096, default: 128, help: 'environments kept busy at once' },
  episodes: { type: 'int', min: 1, max: 10_000_000, default: 10_000, help: 'episodes in all' },
  json: { type: 'boolean', help: 'one JSON object per line' },
  help: { type: 'boolean', help: 'print this help' },
} as const;

/** A reply's JSON, read field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** POST a JSON body (GET without one); the reply's JSON. @throws Error with the server's message on a refusal. */
async function call(base: string, path: string, body?: unknown): Promise<Json> {
  const init = body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) };
  const r = await fetch(base + path, init);
  const value = await r.json();
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}: ${value.error}`);
  return value;
}

/** The server in a process of its own; resolves once it prints its address. */
async function startServer(envs: number): Promise<{ base: string; stop: () => void }> {
  const args = ['--expose-gc', '--import', 'tsx', 'cli/serve.ts', '--port', '0', '--max-envs', String(envs * 2)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const m = /^serving on (http:\/\/\S+)/.exec(line);
    if (m) return { base: m[1], stop: () => child.kill('SIGTERM') };
  }
  throw new Error('the server exited before it listened');
}

/** One benchmark's running counts. */
interface Counts {
  started: number;
  done: number;
  steps: number;
  /** Requests made: a step each, and a create, a reset and a close per episode. */
  requests: number;
}

/** An action drawn from `admissible`: an open form completed with the task's first three words. */
function draw(rng: Rng, admissible: readonly string[], task: string): string {
  const a = rng.pick(admissible);
  return isOpenAction(a) ? `${a}${task.split(' ').slice(0, 3).join(' ')}]` : a;
}

/** Episodes on one environment slot until `target` episodes have started; `report` after every 1 000th. */
async function slot(
  base: string,
  env: string,
  preset: string,
  rng: Rng,
  c: Counts,
  target: number,
  report: () => Promise<void>,
) {
  while (c.started < target) {
    const index = c.started++;
    const { id } = await call(base, '/create', { env, preset });
    const r = await call(base, '/reset', { env_idx: id, split: 'train', index });
    c.requests += 3;
    let admissible: string[] = r.admissible_actions;
    for (let done = false; !done;) {
      const s = await call(base, '/step', { env_idx: id, action: draw(rng, admissible, r.task) });
      c.steps++;
      c.requests++;
      done = s.done;
      admissible = s.info.admissible_actions;
    }
    await call(base, '/close', { env_idx: id });
    if (++c.done % 1000 === 0) await report();
  }
}

/** Runs the benchmark; returns the exit code (2 on bad flags). */
export async function benchServe(argv: readonly string[]): Promise<number> {
  let args;
  let preset: string;
  try {
    args = parseArgs(argv, BENCH_SERVE_FLAGS);
    if (args.help) {
      process.stdout.write(`${usage('npm run bench:serve --', BENCH_SERVE_FLAGS)}\n`);
      return 0;
    }
    preset = envAndPreset(args.env, args.preset).preset;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`bench:serve: ${e.message}\n${usage('npm run bench:serve --', BENCH_SERVE_FLAGS)}\n`);
    return USAGE_EXIT_CODE;
  }
  const server = await startServer(args.envs);
  const c: Counts = { started: 0, done: 0, steps: 0, requests: 0 };
  const t0 = performance.now();
  const print = (o: Record<string, unknown>, text: string) =>
    process.stdout.write(`${args.json ? JSON.stringify(o) : text}\n`);
  const report = async () => {
    const [episodes, steps, secs] = [c.done, c.steps, (performance.now() - t0) / 1000];
    const m = (await call(server.base, '/health')).memory;
    const rate = secs > 0 ? Math.round(steps / secs) : 0;
    const o = { episodes, steps, stepsPerSecond: rate, rssMiB: m.rss, heapMiB: m.heap_used };
    print(o, `episodes ${episodes}: ${steps} steps, ${rate} steps/s, server rss ${m.rss} MiB, heap ${m.heap_used} MiB`);
  };
  try {
    await report(); // the idle server's memory
    const rng = new Rng(1);
    await Promise.all(
      Array.from({ length: args.envs }, (_, k) =>
        slot(server.base, args.env, preset, rng.fork(`slot/${k}`), c, args.episodes, report),
      ),
    );
    const secs = (performance.now() - t0) / 1000;
    const [steps, requests] = [Math.round(c.steps / secs), Math.round(c.requests / secs)];
    const summary = { env: args.env, preset, envs: args.envs, episodes: c.done, steps: c.steps, seconds: secs };
    print(
      { ...summary, stepsPerSecond: steps, requestsPerSecond: requests },
      `${args.env}/${preset}, ${args.envs} environments at once: ${c.done} episodes, ${c.steps} steps in ` +
        `${secs.toFixed(1)} s = ${steps} steps/s (${requests} requests/s with create, reset and close)`,
    );
  } finally {
    server.stop();
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await benchServe(process.argv.slice(2));
}
