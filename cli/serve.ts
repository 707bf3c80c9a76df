/**
 * `npm run serve -- [--host H] [--port P] [--max-envs N] [--idle-timeout S] [--expert] [--log]`: the playground's
 * environments, embedded analyzers and retrieval corpus over HTTP, for trainers outside the page (verl-agent, the OPID
 * reference code, TRL; docs/scale-out.md):
 *
 * - the environment server in the shape of AgentGym's `agentenv-*` servers (cli/serve/env-routes.ts): `/create`,
 *   `/reset`, `/step`, `/observation`, `/available_actions`, `/close`, `/health`, `/version`;
 * - the embedded analyzers as an OpenAI-compatible `/v1/chat/completions` (cli/serve/analyzer.ts);
 * - Search-R1's `/retrieve` over an env's corpus (cli/serve/retrieve.ts).
 *
 * Listens on 127.0.0.1 unless `--host` says otherwise (`--host 0.0.0.0` exposes it: there is no authentication);
 * `--port 0` takes a free port. Prints one line once listening, `serving on http://HOST:PORT …`, and with `--log` one
 * line per request on stderr (method, path, status, ms, and for a client gone before the answer the refusal's message
 * (`logLine`): never a body or a header). Stops on SIGINT / SIGTERM. Exits 2 with a message naming the flag on bad
 * flags, 1 when the port cannot be had. `--help` lists these routes and the flags (`serveHelp`).
 */
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ENV_NAMES } from '../src/core/envs/registry';
import { USAGE_EXIT_CODE, UsageError, parseArgs, usage } from './args';
import { analyzerRoutes } from './serve/analyzer';
import { envRoutes } from './serve/env-routes';
import { listener, type OnDone } from './serve/http';
import { EnvPool } from './serve/pool';
import { retrieveRoutes } from './serve/retrieve';

/** Flags of `serve`. */
export const SERVE_FLAGS = {
  host: { type: 'string', default: '127.0.0.1', help: 'address to listen on (0.0.0.0 exposes the server: no auth)' },
  port: { type: 'int', min: 0, max: 65535, default: 8700, help: 'port to listen on (0: any free port)' },
  'max-envs': {
    type: 'int',
    min: 1,
    max: 100_000,
    default: 1024,
    help: 'most environments open at once (a verl-agent batch is env_num × group_n, e.g. 16 × 8 = 128)',
  },
  'idle-timeout': {
    type: 'int',
    min: 0,
    default: 600,
    help: 'seconds after which an unused environment is reclaimed (0: never)',
  },
  expert: {
    type: 'boolean',
    help: "serve GET /expert_action: the env's expert, which reads the hidden state (demonstrations, checks)",
  },
  log: { type: 'boolean', help: 'one line per request on stderr: method, path, status, ms (never a body)' },
  help: { type: 'boolean', help: 'print this help' },
} as const;

/**
 * `npm run serve -- --help`: the usage line, the routes the server offers (every route of `startServer`'s table, by
 * group) and where the protocol is described (docs/scale-out.md), then the flags.
 */
export function serveHelp(): string {
  const [first, ...flags] = usage('npm run serve --', SERVE_FLAGS).split('\n');
  const routes = [
    'Serves the environments, the embedded analyzers and a retrieval corpus over HTTP; protocol, clients and',
    'examples in docs/scale-out.md:',
    '  environments (AgentGym-shaped): POST /create, /reset, /step, /close; GET /observation, /available_actions,',
    '    /health, /version, /expert_action (only with --expert)',
    '  analyzers (OpenAI-compatible): POST /v1/chat/completions; GET /v1/models, /v1/models/{id}',
    "  retrieval (Search-R1's): POST /retrieve",
  ];
  return [first, ...routes, ...flags].join('\n');
}

/** What `startServer` takes. */
export interface ServeOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  maxEnvs: number;
  idleSeconds: number;
  expert: boolean;
  /** Called once per request (method, path, status, ms; what a client gone before the answer missed: `OnDone`). */
  onRequest?: OnDone;
  /** How long a request body may take to arrive (ms) before a 408; default BODY_TIMEOUT_MS (10 s). */
  bodyTimeoutMs?: number;
}

/** A running server and how to stop it. */
export interface RunningServer {
  server: Server;
  /** The port it listens on (the one chosen when 0 was asked). */
  port: number;
  pool: EnvPool;
  /** Stop listening, close idle connections and stop the idle sweep. */
  close(): Promise<void>;
}

/** The package version, for `/version`. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/**
 * Start the server (every route of the module doc).
 * @throws the listen error (e.g. EADDRINUSE) when the port cannot be had.
 */
export async function startServer(o: ServeOptions): Promise<RunningServer> {
  const idleMs = o.idleSeconds * 1000;
  const pool = new EnvPool({ maxEnvs: o.maxEnvs, idleMs });
  const routes = {
    ...envRoutes(pool, { expert: o.expert, version: packageVersion(), maxEnvs: o.maxEnvs, idleSeconds: o.idleSeconds }),
    ...analyzerRoutes(),
    ...retrieveRoutes(),
  };
  const listeners = listener(routes, o.onRequest, o.bodyTimeoutMs);
  const server = createServer(listeners.request);
  server.on('clientError', listeners.clientError);
  server.keepAliveTimeout = 65_000; // clients stepping in lockstep keep their connections between turns
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const sweep = idleMs > 0 ? setInterval(() => pool.sweep(), Math.min(idleMs / 4, 60_000)) : null;
  sweep?.unref();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  return {
    server,
    port,
    pool,
    close: () =>
      new Promise<void>((resolve) => {
        if (sweep) clearInterval(sweep);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * One `--log` line: method, path, status and milliseconds (`POST /step 200 0.4 ms`); for a client that could not hear
 * the answer, the refusal's message after `not heard:` (the route and what was wrong; never a body or a header).
 */
export function logLine(method: string, path: string, status: number, ms: number, unheard?: string): string {
  return `${method} ${path} ${status} ${ms.toFixed(1)} ms${unheard === undefined ? '' : ` (not heard: ${unheard})`}`;
}

/**
 * The line `serve` prints when the port cannot be had: the listen error's message and, for the two errors a user can
 * act on, the fix — another `--port` or `--port 0` (any free port, printed on start) when the port is taken
 * (EADDRINUSE), a port from 1024 up when a privileged one is refused (EACCES).
 */
export function listenErrorLine(host: string, port: number, e: Error & { code?: unknown }): string {
  const head = `serve: cannot listen on ${host}:${port}: ${e.message}`;
  if (e.code === 'EADDRINUSE') {
    return `${head}\n  another process holds port ${port}: pass --port with a free one, or --port 0 for any free port`;
  }
  if (e.code === 'EACCES') return `${head}\n  ports below 1024 need privileges: pass --port 1024 or above, or --port 0`;
  return head;
}

/** Parse flags and serve until SIGINT / SIGTERM. Returns the exit code when it does not serve (help, bad flags). */
export async function serve(argv: readonly string[]): Promise<number | null> {
  let args;
  try {
    args = parseArgs(argv, SERVE_FLAGS);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`serve: ${e.message}\n${usage('npm run serve --', SERVE_FLAGS)}\n`);
    return USAGE_EXIT_CODE;
  }
  if (args.help) {
    process.stdout.write(`${serveHelp()}\n`);
    return 0;
  }
  const log: OnDone | undefined = args.log
    ? (...line) => void process.stderr.write(`${logLine(...line)}\n`)
    : undefined;
  let running: RunningServer;
  try {
    running = await startServer({
      host: args.host,
      port: args.port,
      maxEnvs: args['max-envs'],
      idleSeconds: args['idle-timeout'],
      expert: args.expert,
      onRequest: log,
    });
  } catch (e) {
    process.stderr.write(`${listenErrorLine(args.host, args.port, e as Error)}\n`);
    return 1;
  }
  const idle = args['idle-timeout'] ? `reclaimed after ${args['idle-timeout']} s unused` : 'never reclaimed';
  process.stdout.write(
    `serving on http://${args.host}:${running.port} (envs: ${ENV_NAMES.join(', ')}; at most ${args['max-envs']} ` +
      `environments, ${idle}${args.expert ? '; /expert_action on' : ''})\n`,
  );
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return null;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const code = await serve(process.argv.slice(2));
  if (code !== null) process.exitCode = code;
}
