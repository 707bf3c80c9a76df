/**
 * The explorer's turn view (src/ui/components/ExplorerTurn.svelte) rendered to HTML in Node, for an OPID group: the
 * critical turns listed (C_τ), the critical turn badged with its routed step skill (and λ_skill), a non-critical turn
 * with the episode skill instead, the skills in the prompt, the action tokens carrying their exact A_skill values
 * (data-value, aria-label: not colour only), and an inadmissible action marked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import type { ExplorerGroup, ExplorerTrajectory, ExplorerTurn } from '../../src/worker/api';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let vite: ViteDevServer;
let render: (c: unknown, o: { props: Record<string, unknown> }) => { body: string };
let Turn: unknown;

beforeAll(async () => {
  vite = await createServer({
    root: ROOT,
    configFile: false,
    logLevel: 'silent',
    appType: 'custom',
    plugins: [svelte({ compilerOptions: { runes: true } })],
    server: { middlewareMode: true, hmr: false, ws: false, watch: null },
  });
  Turn = (await vite.ssrLoadModule('/src/ui/components/ExplorerTurn.svelte')).default;
  render = (await vite.ssrLoadModule('svelte/server')).render;
}, 120_000);
afterAll(async () => vite?.close());

const f = (xs: number[]) => Float32Array.from(xs);
const prompt = (observation: string, stepSkill?: string) => ({
  task: 'put a mug in the cabinet',
  episodeSkill: 'look in the cabinets first',
  history: [],
  observation,
  admissible: ['go to cabinet 1', 'take mug 1'],
  ...(stepSkill ? { stepSkill } : {}),
  raw: '<task>…',
  length: 40,
});
const turn = (k: number, extra: Partial<ExplorerTurn>): ExplorerTurn => ({
  prompt: prompt(`obs ${k}`),
  observation: `obs ${k}`,
  reply: `reply ${k}`,
  action: 'go to cabinet 1',
  valid: true,
  reward: 0,
  done: false,
  tokenStart: 0,
  tokenCount: 1,
  tokenTexts: ['go'],
  ...extra,
});
const trajectory: ExplorerTrajectory = {
  success: false,
  reward: 0,
  score: -0.1,
  advantage: -0.5,
  invalidCount: 1,
  initialObservation: 'obs 0',
  episodeSkill: 'look in the cabinets first',
  turns: [
    turn(0, { tokenStart: 0, tokenCount: 1, tokenTexts: ['go'] }),
    turn(1, {
      prompt: prompt('obs 1', 'take the mug before opening'),
      tokenStart: 1,
      tokenCount: 2,
      tokenTexts: ['take', ' mug'],
      critical: true,
      stepSkill: 'take the mug before opening',
      action: 'take mug 9',
      valid: false,
      done: true,
    }),
  ],
};
const group: ExplorerGroup = {
  step: 3,
  group: 0,
  task: 'put a mug in the cabinet',
  taskType: 'pick',
  taskIndex: 7,
  trajectories: [trajectory],
  tokens: {
    ids: Int32Array.from([5, 6, 7]),
    adv: f([-0.5, -0.25, -0.625]),
    aEp: f([-0.5, -0.5, -0.5]),
    aSkill: f([0, 0.5, -0.25]),
    logpSkill: f([-1, -0.5, -2]),
    logpOld: f([-1, -1, -1.75]),
    logpRef: null,
    entropy: f([0.5, 0.25, 1]),
    ratio: null,
  },
};
/** The turn view of turn `t` coloured by A_skill, as HTML without the hydration comments. */
const show = (t: number) =>
  render(Turn, {
    props: {
      explorer: { turn: t, quantity: 'aSkill', move: () => undefined },
      group,
      trajectory,
      algo: 'opid',
      lambdaSkill: 0.5,
    },
  }).body.replace(/<!--[^]*?-->/g, '');

describe('ExplorerTurn (OPID)', () => {
  it(
    'the critical turn: badge, routed step skill with λ, the skills in the prompt, exact A_skill per ' +
      'token, the invalid mark',
    () => {
      const html = show(1);
      expect(html).toContain('critical turns (C_τ): 2');
      expect(html).toMatch(/<h3[^>]*>Action <span class="badge[^"]*">critical<\/span><\/h3>/);
      expect(html).toContain('step skill: take the mug before opening · λ_skill 0.5');
      expect(html).toMatch(/step skill in the prompt<\/span> take the mug before opening/);
      expect(html).toMatch(/skill in the prompt<\/span> look in the cabinets first/);
      const values = [...html.matchAll(/data-testid="explorer-token" data-value="([^"]*)"/g)].map((m) => m[1]);
      expect(values).toEqual(['0.5', '-0.25']);
      expect(html).toMatch(/aria-label="take: A_skill \(skill advantage\) [^"]*0\.5/);
      expect(html).toContain('data-testid="explorer-invalid"');
      // The mark names no env's own refusal text (each env answers in its own words: the reply shows them).
      expect(html).toMatch(/✗ inadmissible: the environment refused the action \(its reply below\)/);
      expect(html).not.toContain('Nothing happens');
    },
  );
  it('a turn outside C_τ gets the episode skill, no badge, no invalid mark', () => {
    const html = show(0);
    expect(html).toContain('episode skill: look in the cabinets first · λ_skill 0.5');
    expect(html).not.toMatch(/class="badge[^"]*">critical/);
    expect([...html.matchAll(/data-testid="explorer-token" data-value="([^"]*)"/g)].map((m) => m[1])).toEqual(['0']);
    expect(html).not.toContain('data-testid="explorer-invalid"');
  });
});

describe('ExplorerTurn (a group read back from a stored run)', () => {
  const stored = (tokens: boolean): { group: ExplorerGroup; trajectory: ExplorerTrajectory } => {
    const t: ExplorerTrajectory = {
      ...trajectory,
      turns: trajectory.turns.map((u, k) => ({
        ...u,
        prompt: null,
        reward: tokens ? u.reward : NaN,
        reply: tokens || k === 0 ? u.reply : '',
        ...(tokens ? {} : { tokenStart: 0, tokenCount: 0, tokenTexts: [] }),
      })),
    };
    const g: ExplorerGroup = {
      ...group,
      trajectories: [t],
      stored: { notKept: ['prompts'], tokens },
      ...(tokens
        ? {}
        : {
            tokens: {
              ids: new Int32Array(0),
              adv: f([]),
              aEp: f([]),
              aSkill: null,
              logpSkill: null,
              logpOld: f([]),
              logpRef: null,
              entropy: f([]),
              ratio: null,
            },
          }),
    };
    return { group: g, trajectory: t };
  };
  const showStored = (tokens: boolean) =>
    render(Turn, {
      props: {
        explorer: { turn: 1, quantity: 'aSkill', move: () => undefined },
        ...stored(tokens),
        algo: 'opid',
        lambdaSkill: 0.5,
      },
    }).body.replace(/<!--[^]*?-->/g, '');
  it(
    'with its numbers: the observation instead of the prompt, said to be not kept; the tokens keep their ' +
      'stored values',
    () => {
      const html = showStored(true);
      expect(html).toContain('data-testid="explorer-prompt-not-kept"');
      expect(html).toMatch(/data-testid="explorer-observation"><span class="k[^"]*">observation<\/span> obs 1<\/p>/);
      expect(html).not.toMatch(/<span class="k[^"]*">admissible actions<\/span>/);
      expect([...html.matchAll(/data-testid="explorer-token" data-value="([^"]*)"/g)].map((m) => m[1])).toEqual([
        '0.5',
        '-0.25',
      ]);
    },
  );
  it('without numbers: the action as text (no colouring, no legend), reward and the last reply as not kept', () => {
    const html = showStored(false);
    expect(html).toContain('data-testid="explorer-tokens-not-kept"');
    expect(html).toMatch(/data-testid="explorer-action">(>|&gt;) take mug 9<\/p>/);
    expect(html).not.toContain('data-testid="explorer-token"');
    expect(html).not.toContain('aria-label="Colour legend"');
    expect(html).toMatch(/<label class="colour[^"]*" hidden/);
    expect(html).toMatch(/data-testid="explorer-reward"[^>]*>not kept</);
    expect(html).toMatch(/<dt[^>]*>reply<\/dt>\s*<dd[^>]*>not kept<\/dd>/);
  });
});
