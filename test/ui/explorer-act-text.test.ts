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
    root: ROOT, configFile: false, logLevel: 'silent', appType: 'custom',
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
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(rel, e.name), ext) : ext.test(e.name) ? [path.join(rel, e.name)] : []);
}

describe('an action\'s probability, in words', () => {
  it('the Act panel: the product of its tokens\' probabilities; the log-prob, in nats, the sum', () => {
    const act = { episode: null, busy: false, greedy: false, error: '' };
    const text = render(Act, { props: { act, from: null } }).body.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
    expect(text).toContain(
      'the 5 most probable admissible actions (probability of the whole action: the product of its tokens\' probabilities, so its log-prob in nats is the sum of theirs; at the run\'s temperature and decoding)',
    );
    expect(text).not.toContain('summed over its tokens');
  });

  it('no page, CLI or doc text calls a probability a sum over the tokens', () => {
    const hits = ['README.md', 'docs', 'src', 'cli'].flatMap((r) => files(r, /\.(ts|svelte|md)$/))
      .filter((f) => !f.startsWith(path.join('docs', 'experiments', 'opid-table')))
      .flatMap((f) => fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').flatMap((line, i) =>
        /probabilit[a-z]* of the whole action, summed|probabilit[a-z]*[^.;]*, summed over its tokens/i.test(line) ? [`${f}:${i + 1}`] : []));
    expect(hits).toEqual([]);
  });
});
