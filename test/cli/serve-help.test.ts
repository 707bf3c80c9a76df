/**
 * `npm run serve -- --help` (cli/serve.ts `serveHelp`): besides the flags, the routes the server offers, every route
 * of its table named, and where the protocol is described (docs/scale-out.md).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { serveHelp } from '../../cli/serve';
import { analyzerRoutes } from '../../cli/serve/analyzer';
import { envRoutes } from '../../cli/serve/env-routes';
import { EnvPool } from '../../cli/serve/pool';
import { retrieveRoutes } from '../../cli/serve/retrieve';

describe('serve --help', () => {
  it('names the routes by group and points to docs/scale-out.md, before the flags', () => {
    expect(serveHelp().split('\n').slice(0, 8)).toEqual([
      'usage: npm run serve -- [flags]',
      'Serves the environments, the embedded analyzers and a retrieval corpus over HTTP; protocol, clients and',
      'examples in docs/scale-out.md:',
      '  environments (AgentGym-shaped): POST /create, /reset, /step, /close; GET /observation, /available_actions,',
      '    /health, /version, /expert_action (only with --expert)',
      '  analyzers (OpenAI-compatible): POST /v1/chat/completions; GET /v1/models, /v1/models/{id}',
      "  retrieval (Search-R1's): POST /retrieve",
      'flags:',
    ]);
  });

  it('names every route the server answers (the bare GET / aside)', () => {
    const pool = new EnvPool({ maxEnvs: 1, idleMs: 0 });
    const table = {
      ...envRoutes(pool, { expert: false, version: '0', maxEnvs: 1, idleSeconds: 0 }),
      ...analyzerRoutes(),
      ...retrieveRoutes(),
    };
    const paths = Object.keys(table)
      .map((k) => k.split(' ')[1])
      .filter((p) => p !== '/');
    expect(paths.length).toBe(13);
    const help = serveHelp();
    // Each path followed by a separator or the end of a line (`/step`, never a prefix of a longer path); a path
    // one segment below a prefix (`/v1/models/*`) is written `/v1/models/{id}`.
    for (const p of paths) {
      const written = p.replace(/\/\*$/, '/{id}').replace(/[/{}]/g, '\\$&');
      expect(help, p).toMatch(new RegExp(`${written}(?=[,;: ]|$)`, 'm'));
    }
  });

  it('as a process: prints it and exits 0', () => {
    const r = spawnSync('node_modules/.bin/tsx', ['cli/serve.ts', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${serveHelp()}\n`);
  }, 30_000);
});
