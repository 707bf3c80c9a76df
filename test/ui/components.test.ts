/**
 * Page components rendered to HTML in Node (compiled for the server by the Vite Svelte plugin): the trajectory panel
 * renders analyzer skills as text (an analyzer's output is untrusted input) — a skill's
 * `<script>` must come out escaped — with the episode skill, critical steps and their step skill, and the failure
 * words; the analyzer notice merges reasons; every component compiles.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import type { TrajectoriesEvent, TrajectoryView } from '../../src/core/train/events';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let vite: ViteDevServer;
type Render = (c: unknown, o: { props: Record<string, unknown> }) => { body: string };
let render: Render;
let Trajectories: unknown;
let Notices: unknown;

beforeAll(async () => {
  vite = await createServer({
    root: ROOT, configFile: false, logLevel: 'silent', appType: 'custom',
    plugins: [svelte({ compilerOptions: { runes: true } })],
    server: { middlewareMode: true, hmr: false, ws: false, watch: null },
  });
  Trajectories = (await vite.ssrLoadModule('/src/ui/components/Trajectories.svelte')).default;
  Notices = (await vite.ssrLoadModule('/src/ui/components/Notices.svelte')).default;
  render = (await vite.ssrLoadModule('svelte/server')).render as Render;
}, 60_000);

afterAll(async () => {
  await vite?.close();
});

const tok = (text: string, adv: number, advSkill?: number) => ({ text, logpOld: -1, logpRef: -1.2, adv, entropy: 0.5, ...(advSkill === undefined ? {} : { logpSkill: -0.5, advSkill }) });
const traj = (o: Partial<TrajectoryView>): TrajectoryView => ({
  task: 'put an apple in fridge.', taskType: 'pick', success: false, reward: 0, score: 0, advantage: -0.7,
  initialObservation: 'You are in the middle of a room.',
  steps: [
    { observation: 'You are in the middle of a room.', action: 'go to countertop 1', valid: true, tokens: [tok('go', -0.7, 0.2)], critical: false },
    {
      observation: 'On the countertop 1, you see a apple 1.', action: 'take apple 1 from countertop 1', valid: true,
      tokens: [tok('take', -0.7, 1.5)], critical: true, stepSkill: 'at this step: <img src=x onerror="alert(1)">',
    },
  ],
  ...o,
});
const event = (group: TrajectoryView[]): TrajectoriesEvent => ({ event: 'trajectories', step: 3, group });

describe('Trajectories panel (OPID skills)', () => {
  it('shows the episode skill and the critical step with its step skill, as escaped text', () => {
    const evil = '<script>window.pwned = 1</script> then <b>take</b> apple 1';
    const { body } = render(Trajectories, { props: { group: event([traj({ episodeSkill: evil }), traj({ success: true, reward: 1, analyzerError: 'analyzer failed: HTTP 500 (server error)' })]), algo: 'opid', lambdaSkill: 0.5 } });
    expect(body).toContain('data-testid="episode-skill"');
    expect(body).toContain('&lt;script>window.pwned = 1&lt;/script> then &lt;b>take&lt;/b> apple 1');
    expect(body).not.toContain('<script>window.pwned');
    expect(body).not.toContain('<b>take</b>');
    expect(body).toContain('data-testid="critical-step"');
    expect(body).toContain('at this step: &lt;img src=x onerror="alert(1)">');
    expect(body).not.toMatch(/<img/);
    expect(body).toContain('no skill: analyzer failed: HTTP 500 (server error)');
  });

  it('says why a rollout has no skill, and shows no skill block for GRPO', () => {
    const failed = render(Trajectories, { props: { group: event([traj({})]), algo: 'opid' } }).body;
    expect(failed).toContain('its analysis failed');
    const skipped = render(Trajectories, { props: { group: event([traj({ success: true, reward: 1 })]), algo: 'opid', failedOnly: true } }).body;
    expect(skipped).toContain('not analysed (failed rollouts only)');
    const grpo = render(Trajectories, { props: { group: event([traj({ episodeSkill: 'x' })]), algo: 'grpo' } }).body;
    expect(grpo).not.toContain('episode-skill');
    expect(grpo).not.toContain('no-skill');
  });
});

describe('Notices: analyzer failures', () => {
  const base = { status: '', pendingChange: null, stepsDone: 0, linkIssues: [], baseNotice: null, error: null, onconfirm() {}, oncancel() {},
    ondismisslink() {}, ondismissbase() {}, ondismissanalyzer() {} };

  it('one notice listing each reason with its count', () => {
    const analyzerFailures = { total: 5, steps: 2, reasons: [{ reason: 'HTTP 401 (API key rejected)', count: 4 }, { reason: 'reply was not JSON', count: 1 }] };
    const body = render(Notices, { props: { ...base, analyzerFailures } }).body.replace(/\s+/g, ' ');
    expect(body.match(/data-testid="analyzer-notice"/g)).toHaveLength(1);
    expect(body).toContain('The run goes on; 5 rollouts in 2 steps got no skill signal');
    expect(body).toContain('HTTP 401 (API key rejected) — 4 rollouts');
    expect(body).toContain('reply was not JSON — 1 rollout<');
  });

  it('nothing when there are none', () => {
    expect(render(Notices, { props: { ...base, analyzerFailures: null } }).body).not.toContain('analyzer-notice');
  });
});

describe('page components', () => {
  it('every component and the page compile', async () => {
    const dir = `${ROOT}/src/ui/components`;
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.svelte'))) await vite.ssrLoadModule(`/src/ui/components/${f}`);
    await vite.ssrLoadModule('/src/ui/App.svelte');
  });
});
