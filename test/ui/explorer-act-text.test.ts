/**
 * The "Act with the current policy" panel's help text (ExplorerAct.svelte, rendered to HTML in Node) says what an
 * action's probability is: the product of its tokens' probabilities, its log-prob (nats) the sum of theirs
 * (src/core/rollout/act-topk.ts); and no text of the product calls an action's probability a sum over its tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createServer, type ViteDevServer } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let vite: ViteDevServer;
let render: (c: unknown, o: { props: Record<string, unknown> }) => { body: string };
let Act: unknown;

beforeAll(async () => {
  vite = await createServer({
    root: ROOT,
    configFile: false,
    logLevel: 'silent',
    appType: 'custom',
    plugins: [svelte({ compilerOptions: { runes: true } })],
    server: { middlewareMode: true, hmr: false, ws: false, watch: null },
  });
  Act = (await vite.ssrLoadModule('/src/ui/components/ExplorerAct.svelte')).default;
  render = (await vite.ssrLoadModule('svelte/server')).render;
}, 120_000);
afterAll(async () => vite?.close());

/** Every file under `rel` of the given extensions. */
function files(rel: string, ext: RegExp): string[] {
  const abs = path.join(ROOT, rel);
  if (fs.statSync(abs).isFile()) return [rel];
  return fs
    .readdirSync(abs, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? files(path.join(rel, e.name), ext) : ext.test(e.name) ? [path.join(rel, e.name)] : [],
    );
}

describe("an action's probability, in words", () => {
  it("the Act panel: the product of its tokens' probabilities; the log-prob, in nats, the sum", () => {
    const act = { episode: null, busy: false, greedy: false, error: '' };
    const text = render(Act, { props: { act, from: null } })
      .body.replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ');
    expect(text).toContain(
      'the 5 most probable admissible actions (probability of the whole action: the product of its ' +
        "tokens' probabilities, so its log-prob in nats is the sum of theirs; at the run's temperature and " +
        'decoding)',
    );
    expect(text).not.toContain('summed over its tokens');
  });

  it('a turn with fewer admissible actions than the list holds: "Top 4 of 4", and no "other 0 actions" line', () => {
    const prob = (action: string, index: number, p: number) => ({
      action,
      index,
      prob: p,
      logp: Math.log(p),
      tokens: 3,
    });
    const turn = (admissibleCount: number, top: ReturnType<typeof prob>[], rest: number) => ({
      turn: 1,
      observation: 'o',
      admissibleCount,
      top,
      rest,
      reward: 0,
      done: false,
      reply: 'r',
      weightsStep: 1,
      chosen: { action: top[0].action, how: 'sampled', prob: top[0].prob, logp: top[0].logp, rank: 1, valid: true },
    });
    const ep = (decoding: string, t: ReturnType<typeof turn>) => ({
      from: { step: 1, group: 0, trajectory: 0 },
      task: 't',
      taskType: 'pick',
      taskIndex: 0,
      initialObservation: 'o',
      decoding,
      temperature: 1,
      historyTurns: 3,
      k: 5,
      maxSteps: 10,
      turns: [t],
      done: false,
      success: false,
    });
    const four = turn(4, [prob('a', 0, 0.5), prob('b', 1, 0.25), prob('c', 2, 0.125), prob('d', 3, 0.125)], 0);
    const seven = turn(
      7,
      [prob('a', 0, 0.5), prob('b', 1, 0.2), prob('c', 2, 0.1), prob('d', 3, 0.1), prob('e', 4, 0.05)],
      0.05,
    );
    const text = (decoding: string, t: ReturnType<typeof turn>) =>
      render(Act, { props: { act: { episode: ep(decoding, t), busy: false, greedy: false, error: '' }, from: null } })
        .body.replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ');
    expect(text('admissible', four)).toContain('Top 4 of 4 admissible actions at turn 1');
    expect(text('admissible', four)).not.toMatch(/other \d+ action/);
    expect(text('admissible', seven)).toContain('Top 5 of 7 admissible actions at turn 1');
    expect(text('admissible', seven)).toContain('other 2 actions: 0.0500');
    expect(text('free', four)).toContain(' inadmissible responses: 0.0000');
    expect(text('free', four)).not.toMatch(/other \d+ action/);
    expect(text('free', seven)).toContain('other 2 actions and inadmissible responses: 0.0500');
  });
  it('no page, CLI or doc text calls a probability a sum over the tokens', () => {
    const hits = ['README.md', 'docs', 'src', 'cli']
      .flatMap((r) => files(r, /\.(ts|svelte|md)$/))
      .filter((f) => !f.startsWith(path.join('docs', 'experiments', 'opid-table')))
      .flatMap((f) =>
        fs
          .readFileSync(path.join(ROOT, f), 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            /probabilit[a-z]* of the whole action, summed|probabilit[a-z]*[^.;]*, summed over its tokens/i.test(line)
              ? [`${f}:${i + 1}`]
              : [],
          ),
      );
    expect(hits).toEqual([]);
  });
});
