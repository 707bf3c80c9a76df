/**
 * Page components rendered to HTML in Node (compiled for the server by the Vite Svelte plugin): the trajectory panel
 * renders analyzer skills as text (an analyzer's output is untrusted input) — a skill's
 * `<script>` must come out escaped — with the episode skill, critical steps and their step skill, and the failure
 * words; the analyzer notice merges reasons; every component compiles; the settings controls come from the config
 * schema (every setting of a visible group gets a labelled control of its type, with the schema's range).
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { TrajectoriesEvent, TrajectoryView } from '../../src/core/train/events';
import {
  ALGO_NAMES,
  DEFAULT_CONFIG,
  fieldMeta,
  fieldSchema,
  fieldsOfGroup,
  FIELD_GROUPS,
  RUN_CONFIG_KEYS,
  type FieldJsonSchema,
  type FieldMeta,
  type RunConfig,
  type RunConfigKey,
} from '../../src/core/run/config';
import { ENV_NAMES, getEnvSpec } from '../../src/core/envs/registry';
import {
  controlFrom,
  controlOf,
  unavailableAnalyzers,
  OTHER_GROUPS,
  PANEL_GROUPS,
  panelSections,
  shortHint,
  HINT_MAX,
} from '../../src/ui/components/schemaFields';
import { settingsLockedWhy } from '../../src/ui/state/run-buttons';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let vite: ViteDevServer;
type Render = (c: unknown, o: { props: Record<string, unknown> }) => { body: string };
let render: Render;
let Trajectories: unknown;
let Notices: unknown;
let Controls: unknown;
let TopBar: unknown;
let Analyzer: unknown;
let Field: unknown;

beforeAll(async () => {
  vite = await createServer({
    root: ROOT,
    configFile: false,
    logLevel: 'silent',
    appType: 'custom',
    plugins: [svelte({ compilerOptions: { runes: true } })],
    server: { middlewareMode: true, hmr: false, ws: false, watch: null },
  });
  Trajectories = (await vite.ssrLoadModule('/src/ui/components/Trajectories.svelte')).default;
  Notices = (await vite.ssrLoadModule('/src/ui/components/Notices.svelte')).default;
  Controls = (await vite.ssrLoadModule('/src/ui/components/Controls.svelte')).default;
  Field = (await vite.ssrLoadModule('/src/ui/components/Field.svelte')).default;
  TopBar = (await vite.ssrLoadModule('/src/ui/components/TopBar.svelte')).default;
  Analyzer = (await vite.ssrLoadModule('/src/ui/components/Analyzer.svelte')).default;
  render = (await vite.ssrLoadModule('svelte/server')).render as Render;
}, 60_000);

afterAll(async () => {
  await vite?.close();
});

const tok = (text: string, adv: number, advSkill?: number) => ({
  text,
  logpOld: -1,
  logpRef: -1.2,
  adv,
  entropy: 0.5,
  ...(advSkill === undefined ? {} : { logpSkill: -0.5, advSkill }),
});
const traj = (o: Partial<TrajectoryView>): TrajectoryView => ({
  task: 'put an apple in fridge.',
  taskType: 'pick',
  success: false,
  reward: 0,
  score: 0,
  advantage: -0.7,
  initialObservation: 'You are in the middle of a room.',
  steps: [
    {
      observation: 'You are in the middle of a room.',
      action: 'go to countertop 1',
      valid: true,
      tokens: [tok('go', -0.7, 0.2)],
      critical: false,
    },
    {
      observation: 'On the countertop 1, you see a apple 1.',
      action: 'take apple 1 from countertop 1',
      valid: true,
      tokens: [tok('take', -0.7, 1.5)],
      critical: true,
      stepSkill: 'at this step: <img src=x onerror="alert(1)">',
    },
  ],
  ...o,
});
const event = (group: TrajectoryView[]): TrajectoriesEvent => ({ event: 'trajectories', step: 3, group });

describe('Trajectories panel (OPID skills)', () => {
  it('shows the episode skill and the critical step with its step skill, as escaped text', () => {
    const evil = '<script>window.pwned = 1</script> then <b>take</b> apple 1';
    const { body } = render(Trajectories, {
      props: {
        group: event([
          traj({ episodeSkill: evil }),
          traj({ success: true, reward: 1, analyzerError: 'analyzer failed: HTTP 500 (server error)' }),
        ]),
        algo: 'opid',
        lambdaSkill: 0.5,
      },
    });
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
    const skipped = render(Trajectories, {
      props: { group: event([traj({ success: true, reward: 1 })]), algo: 'opid', failedOnly: true },
    }).body;
    expect(skipped).toContain('not analysed (failed rollouts only)');
    const grpo = render(Trajectories, { props: { group: event([traj({ episodeSkill: 'x' })]), algo: 'grpo' } }).body;
    expect(grpo).not.toContain('episode-skill');
    expect(grpo).not.toContain('no-skill');
  });
});

describe('Notices: analyzer failures', () => {
  const base = {
    status: '',
    pendingChange: null,
    stepsDone: 0,
    linkIssues: [],
    baseNotice: null,
    error: null,
    onconfirm() {},
    oncancel() {},
    ondismisslink() {},
    ondismissbase() {},
    ondismissanalyzer() {},
  };

  it('one notice listing each reason with its count', () => {
    const analyzerFailures = {
      total: 5,
      steps: 2,
      reasons: [
        { reason: 'HTTP 401 (API key rejected)', count: 4 },
        { reason: 'reply was not JSON', count: 1 },
      ],
    };
    const body = render(Notices, { props: { ...base, analyzerFailures } }).body.replace(/\s+/g, ' ');
    expect(body.match(/data-testid="analyzer-notice"/g)).toHaveLength(1);
    expect(body).toContain('The run goes on; 5 rollouts in 2 steps got no skill signal');
    expect(body).toContain('HTTP 401 (API key rejected) — 4 rollouts');
    expect(body).toContain('reply was not JSON — 1 rollout<');
  });

  it('nothing when there are none', () => {
    expect(render(Notices, { props: { ...base, analyzerFailures: null } }).body).not.toContain('analyzer-notice');
  });

  it("the link notice's heading fits its notes: an environment-version note alone says nothing was ignored", () => {
    const linkIssues = [
      {
        field: 'envVersion',
        message:
          'made with environment version household-v1; this is household-v2: the tasks may differ, so its ' +
          "results are not comparable with this run's",
      },
    ];
    const body = render(Notices, { props: { ...base, analyzerFailures: null, linkIssues } }).body;
    expect(body).toMatch(/<p[^>]*>Notes on this link; its settings are used as read:<\/p>/);
    expect(body).not.toContain('ignored');
  });
});

describe('Notices: a settings change that ends the run', () => {
  const props = {
    status: '',
    pendingChange: 'steps',
    stepsDone: 3,
    linkIssues: [],
    baseNotice: null,
    error: null,
    analyzerFailures: null,
    onconfirm() {},
    oncancel() {},
    ondismisslink() {},
    ondismissbase() {},
    ondismissanalyzer() {},
  };

  it('says what is not saved (the weights) and that Runs keeps the run', () => {
    const body = render(Notices, { props }).body.replace(/\s+/g, ' ');
    expect(body).toContain(
      'Changing Steps starts a new run and ends the current one (3 steps). Its weights are not saved under ' +
        'Weights; Runs keeps its record.',
    );
  });

  it('asks and answers in the same words: the run ends, nothing is discarded', () => {
    const body = render(Notices, { props }).body.replace(/\s+/g, ' ');
    expect(body).toContain('aria-label="End the run?"');
    expect(body).toMatch(/data-testid="confirm-change-yes">\s?End run and apply\s?<\/button>/);
    expect(body).not.toMatch(/discard/i);
  });
});

describe('Play view: a bad task index or seed', () => {
  type Play = {
    index: number;
    seed: number;
    error: string;
    start(): Promise<void>;
    random(): Promise<void>;
    typeIndex(text: string): void;
    typeSeed(text: string): void;
  };
  const make = async (calls: unknown[]) => {
    const { PlayState } = await vite.ssrLoadModule('/src/ui/state/play.svelte.ts');
    const api = {
      playStart: async (a: unknown) => {
        calls.push(a);
        throw new Error('not reached');
      },
      playStep: async () => {
        throw new Error('not reached');
      },
    };
    return new PlayState(() => api) as Play;
  };

  it("is not left to the browser's validation popup: the form does not validate natively", async () => {
    const Play = (await vite.ssrLoadModule('/src/ui/components/Play.svelte')).default;
    const body = render(Play, { props: { play: await make([]) } }).body;
    expect(body).toMatch(/<form class="pick[^"]*" novalidate/);
  });

  it("gets the page's plain message and starts nothing", async () => {
    const calls: unknown[] = [];
    const play = await make(calls);
    for (const [index, text] of [
      [-1, 'Task index must be an integer ≥ 0 (got -1); type a whole number such as 0 or 357.'],
      [2.5, 'Task index must be an integer ≥ 0 (got 2.5); type a whole number such as 0 or 357.'],
    ] as const) {
      play.index = index;
      await play.start();
      expect(play.error).toBe(text);
    }
    play.seed = 2.5;
    await play.random();
    expect(play.error).toBe('Seed must be an integer between −2147483647 and 2147483647 (got 2.5).');
    expect(calls).toEqual([]);
  });

  it('an emptied Task index or Seed is refused with the field and what to enter, not read as 0', async () => {
    const calls: unknown[] = [];
    const play = await make(calls);
    play.typeIndex('7');
    expect(play.index).toBe(7);
    play.typeIndex(' ');
    await play.start();
    expect(play.error).toBe('Task index is empty; enter an integer ≥ 0, such as 0 or 357.');
    play.typeSeed('');
    await play.random();
    expect(play.error).toBe('Seed is empty; enter an integer between −2147483647 and 2147483647.');
    expect(calls).toEqual([]);
  });
});

describe("Play view: the run's environment", () => {
  type Play = {
    env: string;
    preset: string;
    view: unknown;
    follow(env: string, preset: string): void;
    setEnv(env: string): void;
  };
  const make = async () => {
    const { PlayState } = await vite.ssrLoadModule('/src/ui/state/play.svelte.ts');
    return new PlayState(() => null) as Play;
  };

  it('is followed until the person picks an env in Play; unknown envs and presets are ignored', async () => {
    const play = await make();
    expect([play.env, play.preset]).toEqual(['household', 'easy']);
    play.follow('searchqa', 'default');
    expect([play.env, play.preset]).toEqual(['searchqa', 'default']);
    play.follow('household', 'default');
    expect([play.env, play.preset]).toEqual(['household', 'default']);
    // A preset picked here stays while the run's env and preset do not change (every other setting calls follow).
    play.preset = 'easy';
    play.follow('household', 'default');
    expect(play.preset).toBe('easy');
    play.follow('nope', 'default');
    play.follow('shop', 'easy');
    expect([play.env, play.preset]).toEqual(['household', 'easy']);
    play.setEnv('shop');
    play.follow('searchqa', 'default');
    expect([play.env, play.preset]).toEqual(['shop', 'default']);
  });

  it('leaves a task being played alone', async () => {
    const play = await make();
    play.view = { env: 'household' };
    play.follow('searchqa', 'default');
    expect(play.env).toBe('household');
  });
});

describe('page components', () => {
  it('every component and the page compile', async () => {
    const dir = `${ROOT}/src/ui/components`;
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.svelte')))
      await vite.ssrLoadModule(`/src/ui/components/${f}`);
    await vite.ssrLoadModule('/src/ui/App.svelte');
  });
});

/** Text as Svelte's server renderer writes it in an element (& and < escaped). */
const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');
/** The opening tag of the control with id `field-<key>` in `body`. */
const controlTag = (body: string, key: string) =>
  body.match(new RegExp(`<(select|input)[^>]*\\bid="field-${key}"[^>]*>`))?.[0];

describe('settings locked while a run trains', () => {
  const TRAINS =
    'Locked while the run trains: Pause (or Stop) unlocks the settings; changing one then ends this run and starts ' +
    'a new one.';

  it('say why, and what unlocks them, in every phase that locks them; nothing when they are not locked', () => {
    for (const phase of ['starting', 'running', 'stepping'] as const)
      expect(settingsLockedWhy(phase, false)).toBe(TRAINS);
    expect(settingsLockedWhy('booting', false)).toBe('Locked while the training worker starts; wait a moment.');
    expect(settingsLockedWhy('pausing', false)).toBe('Locked until the run pauses at its next safe point.');
    expect(settingsLockedWhy('stopping', false)).toBe('Locked until the run stops at its next safe point.');
    expect(settingsLockedWhy('ready', true)).toBe(
      'Locked while a pretraining holds the worker: pause or abort it in Pretrain to unlock the settings.',
    );
    for (const phase of ['ready', 'paused', 'done', 'error', 'resetting'] as const)
      expect(settingsLockedWhy(phase, false)).toBe('');
  });

  it("the panel says it in a note, and every locked field, the top bar's too, in its tooltip", () => {
    /** The tooltip of the row holding control `field-<key>` ('' when it has none); undefined when there is none. */
    const row = (body: string, key: string) => {
      const open = '<div class="row[^"]*"(?: title="([^"]*)")?>(?:<!--[^>]*-->)?';
      const m = body.match(new RegExp(`${open}<(?:select|input)[^>]*\\bid="field-${key}"`));
      return m ? (m[1] ?? '') : undefined;
    };
    const panel = (disabled: boolean) =>
      render(Controls, {
        props: {
          draft: DEFAULT_CONFIG,
          issuesFor: () => [],
          disabled,
          lockedWhy: disabled ? TRAINS : '',
          checkpoint: null,
          onchange() {},
        },
      }).body;
    expect(panel(true)).toMatch(/<p class="locked[^"]*" data-testid="settings-locked">Locked while the run trains: /);
    expect(panel(true)).toContain(`data-testid="settings-locked">${TRAINS}</p>`);
    expect(row(panel(true), 'steps')).toBe(TRAINS);
    expect(panel(false)).not.toContain('settings-locked');
    expect(row(panel(false), 'steps')).toBe('');
    const bar = render(TopBar, {
      props: {
        draft: DEFAULT_CONFIG,
        backend: null,
        phase: 'running',
        valid: true,
        blocked: false,
        stepsDone: 2,
        issuesFor: () => [],
        onchange() {},
        onstart() {},
        onpause() {},
        onstop() {},
        onstep() {},
        onreset() {},
        oncopylink() {},
      },
    }).body;
    expect(row(bar, 'env')).toBe(TRAINS);
  });
});

describe('settings controls from the schema', () => {
  const noop = () => {};
  const controls = (draft: RunConfig, checkpoint: string | null = null) =>
    render(Controls, { props: { draft, issuesFor: () => [], disabled: false, checkpoint, onchange: noop } }).body;

  it('every group has a place: the panel, the top bar (run), the Analyzer panel, or nowhere (internal)', () => {
    expect([...PANEL_GROUPS, ...OTHER_GROUPS].sort()).toEqual([...FIELD_GROUPS].sort());
    const placed = [
      ...new Set([
        ...ALGO_NAMES.flatMap((algo) => panelSections({ algo }).flatMap((s) => s.keys)),
        ...fieldsOfGroup('run'),
        ...fieldsOfGroup('analyzer'),
      ]),
    ];
    expect(placed.sort()).toEqual(RUN_CONFIG_KEYS.filter((k) => fieldMeta(k).group !== 'internal').sort());
  });

  it("every key of every visible group maps to a label and a control of its type, with the schema's range", () => {
    for (const group of FIELD_GROUPS.filter((g) => g !== 'internal')) {
      for (const key of fieldsOfGroup(group)) {
        const spec = controlOf(key, DEFAULT_CONFIG);
        const j = fieldSchema(key);
        expect(spec.label, key).toBe(fieldMeta(key).label);
        expect(spec.label.length, key).toBeGreaterThan(0);
        expect(spec.hint.length, key).toBeGreaterThan(0);
        expect(spec.hint.length, key).toBeLessThanOrEqual(HINT_MAX + 40);
        expect(spec.title, key).toContain(fieldMeta(key).help);
        const expected =
          key === 'preset' || j.enum
            ? 'select'
            : j.type === 'boolean'
              ? 'checkbox'
              : j.type === 'string'
                ? 'text'
                : 'number';
        expect(spec.kind, key).toBe(expected);
        const value = DEFAULT_CONFIG[key];
        // Field picks its control from the options and the value's type: they must agree with the kind.
        if (spec.kind === 'select') expect(spec.options, key).toContain(value);
        if (spec.kind === 'checkbox') expect(typeof value, key).toBe('boolean');
        if (spec.kind === 'text') expect(typeof value, key).toBe('string');
        if (spec.kind === 'number') {
          expect(typeof value, key).toBe('number');
          expect([spec.min, spec.max, spec.step], key).toEqual([
            j.minimum,
            j.maximum,
            j.type === 'integer' ? 1 : 'any',
          ]);
        }
      }
    }
    expect(controlOf('preset', DEFAULT_CONFIG).options).toEqual(getEnvSpec('household').presets);
    expect(controlOf('init', DEFAULT_CONFIG).optionLabels).toEqual(fieldMeta('init').optionLabels);
    // The Environment select names each env's presets.
    expect(controlOf('env', DEFAULT_CONFIG).optionLabels).toEqual({
      household: 'household: default / easy / easy-pick2',
      shop: 'shop: default',
      searchqa: 'searchqa: default',
    });
    expect(controlOf('tasksPerStep', DEFAULT_CONFIG)).toMatchObject({
      kind: 'number',
      min: 1,
      max: 256,
      step: 1,
      unit: 'tasks',
    });
    expect(controlOf('learningRate', DEFAULT_CONFIG)).toMatchObject({ kind: 'number', min: 1e-7, max: 1, step: 'any' });
  });

  it("the Analyzer select disables, and says why, the analyzers the draft's env cannot run", () => {
    // An env without an embedded analyzer: `heuristic` listed (a link may hold it) but not choosable.
    expect(unavailableAnalyzers({ name: 'quiz', analyzer: undefined })).toEqual({
      heuristic: 'heuristic (embedded: none for quiz)',
    });
    expect(unavailableAnalyzers(getEnvSpec('household'))).toEqual({});
    for (const name of ENV_NAMES) {
      const spec = controlOf('analyzer', { env: name });
      expect(spec.options, name).toEqual(['heuristic', 'http', 'oracle']);
      expect(spec.disabledOptions ?? [], name).toEqual(getEnvSpec(name).analyzer ? [] : ['heuristic']);
      expect(spec.optionLabels?.heuristic, name).toBe(
        getEnvSpec(name).analyzer ? 'heuristic (embedded)' : `heuristic (embedded: none for ${name})`,
      );
      expect(spec.optionLabels?.oracle, name).toBe('oracle (privileged: the expert)');
    }
    expect(controlOf('analyzer', { env: 'nope' }).disabledOptions).toBeUndefined();
    // The select renders the disabled option, and still shows it when the draft holds it.
    const body = render(Field, {
      props: {
        key: 'analyzer',
        label: 'Analyzer',
        value: 'heuristic',
        options: ['heuristic', 'http', 'oracle'],
        optionLabels: unavailableAnalyzers({ name: 'quiz', analyzer: undefined }),
        disabledOptions: ['heuristic'],
        onchange: noop,
      },
    }).body;
    expect(body).toMatch(/<option value="heuristic" disabled[^>]*>heuristic \(embedded: none for quiz\)<\/option>/);
    expect(body).toMatch(/<option value="http"( selected)?>http<\/option>/);
    expect(body).toMatch(/<select id="field-analyzer"[^>]*>/);
  });

  it('a setting added to the schema gets its control from its zod field and meta alone', () => {
    const meta = {
      label: 'Warm-up',
      unit: 'steps',
      group: 'advanced',
      help: 'Steps of linear learning-rate warm-up (Goyal et al. 2017). 0 = none.',
      recommended: '10',
    } satisfies FieldMeta;
    const field = z.number().int().min(0).max(1000).default(0).meta(meta);
    const json = z.toJSONSchema(z.object({ warmup: field }), { io: 'input' }).properties!.warmup as FieldJsonSchema;
    const spec = controlFrom('warmup' as RunConfigKey, meta, json);
    expect(spec).toMatchObject({
      kind: 'number',
      label: 'Warm-up',
      unit: 'steps',
      min: 0,
      max: 1000,
      step: 1,
      hint: 'Steps of linear learning-rate warm-up (Goyal et al. 2017). 0 = none.',
    });
    expect(spec.title).toContain('Recommended: 10.');
    const flag = z
      .boolean()
      .default(false)
      .meta({ ...meta, label: 'Flag' });
    expect(
      controlFrom('flag' as RunConfigKey, meta, z.toJSONSchema(flag, { io: 'input' }) as FieldJsonSchema).kind,
    ).toBe('checkbox');
    const pick = z.enum(['a', 'b']).default('a').meta(meta);
    expect(
      controlFrom('pick' as RunConfigKey, meta, z.toJSONSchema(pick, { io: 'input' }) as FieldJsonSchema),
    ).toMatchObject({ kind: 'select', options: ['a', 'b'] });
  });

  it('short hints keep the first sentence and what 0 means', () => {
    expect(
      shortHint(
        'Past turns (action + observation) the prompt keeps. 0 = task, observation and admissible actions only.',
      ),
    ).toBe('Past turns (action + observation) the prompt keeps. 0 = task, observation and admissible actions only.');
    expect(shortHint('Base URL, e.g. http://localhost:11434 (Ollama). The API key is never part of the config.')).toBe(
      'Base URL, e.g. http://localhost:11434 (Ollama).',
    );
    expect(shortHint('Training steps. Other words here.')).toBe('Training steps.');
  });

  it(
    'the panel renders one labelled control per field of its visible groups, Advanced closed with the ' +
      'recipe button',
    () => {
      for (const algo of ALGO_NAMES) {
        const draft = { ...DEFAULT_CONFIG, algo } as RunConfig;
        const body = controls(draft);
        const sections = panelSections(draft);
        for (const { heading, keys } of sections) {
          expect(body, heading).toContain(esc(heading));
          for (const key of keys) {
            const spec = controlOf(key, draft);
            const tag = controlTag(body, key);
            expect(tag, key).toBeTruthy();
            expect(body, key).toContain(`for="field-${key}"`);
            expect(body, key).toContain(`>${esc(spec.label)}</label>`);
            if (spec.kind === 'select') expect(tag!.startsWith('<select'), key).toBe(true);
            if (spec.kind === 'checkbox') expect(tag, key).toContain('type="checkbox"');
            if (spec.kind === 'number') {
              expect(tag, key).toContain('type="number"');
              expect(tag, key).toContain(`min="${spec.min}"`);
              expect(tag, key).toContain(`max="${spec.max}"`);
              expect(tag, key).toContain(`step="${spec.step}"`);
            }
            if (spec.unit) expect(body, key).toContain(`">${esc(spec.unit)}</span>`);
          }
        }
        for (const key of [...fieldsOfGroup('run'), ...fieldsOfGroup('analyzer'), ...fieldsOfGroup('internal')])
          expect(body, key).not.toContain(`id="field-${key}"`);
        expect(body.includes('Skills (OPID)'), algo).toBe(algo === 'opid');
        expect(body.includes('Skills (Skill-GRPO)'), algo).toBe(algo === 'skill-grpo');
        expect(body.includes('id="field-lambdaSkill"'), algo).toBe(algo === 'opid');
        expect(body.includes('id="field-skillMemoryTopK"'), algo).toBe(algo === 'skill-grpo');
      }
      const body = controls(DEFAULT_CONFIG);
      const advanced = body.slice(body.indexOf('<details class="advanced'), body.indexOf('</details>'));
      expect(advanced).not.toMatch(/<details[^>]*\bopen/);
      expect(advanced).toContain('data-testid="scratch-recipe"');
      for (const key of fieldsOfGroup('advanced')) expect(advanced, key).toContain(`id="field-${key}"`);
      expect(body).toContain('<option value="easy"');
      expect(body).toContain('>base (pretrained)</option>');
      expect(body).toContain('the shipped policy pretrained on expert demonstrations');
      expect(controls(DEFAULT_CONFIG, 'best-step-40')).toContain(
        'overridden: runs start from checkpoint "best-step-40" (Weights panel)',
      );
    },
  );

  it('the top bar shows the run group from the schema; the Analyzer panel its labels and units', () => {
    const bar = render(TopBar, {
      props: {
        draft: DEFAULT_CONFIG,
        backend: null,
        phase: 'ready',
        valid: true,
        blocked: false,
        stepsDone: 0,
        issuesFor: () => [],
        onchange() {},
        onstart() {},
        onpause() {},
        onstep() {},
        onreset() {},
        oncopylink() {},
      },
    }).body;
    for (const key of fieldsOfGroup('run')) {
      expect(bar, key).toContain(`>${esc(fieldMeta(key).label)}</label>`);
      for (const o of fieldSchema(key).enum ?? []) expect(bar, `${key} ${o}`).toContain(`<option value="${o}"`);
    }
    expect(controlTag(bar, 'seed')).toContain('max="2147483647"');
    const panel = render(Analyzer, {
      props: {
        draft: { ...DEFAULT_CONFIG, algo: 'opid', analyzer: 'http' },
        issuesFor: () => [],
        disabled: false,
        apiKey: '',
        template: { system: '', user: '' },
        templateEdited: false,
        runStarted: false,
        connection: { state: 'idle', text: '' },
        onchange() {},
        onkey() {},
        ontemplate() {},
        onresettemplate() {},
        ontest() {},
      },
    }).body;
    for (const key of fieldsOfGroup('analyzer')) expect(panel, key).toContain(`>${esc(fieldMeta(key).label)}</label>`);
    expect(panel).toMatch(new RegExp(`<span class="unit[^"]*">${fieldMeta('analyzerTimeoutMs').unit}</span>`));
    expect(controlTag(panel, 'analyzerTimeoutMs')).toContain('min="100"');
    expect(controlTag(panel, 'analyzerUrl')).toContain('placeholder="http://localhost:11434"');
  });

  it('the Analyzer panel labels the oracle privileged while it is chosen, and asks for no http field', () => {
    const panelWith = (analyzer: RunConfig['analyzer']) =>
      render(Analyzer, {
        props: {
          draft: { ...DEFAULT_CONFIG, algo: 'opid', analyzer },
          issuesFor: () => [],
          disabled: false,
          apiKey: '',
          template: { system: '', user: '' },
          templateEdited: false,
          runStarted: false,
          connection: { state: 'idle', text: '' },
          onchange() {},
          onkey() {},
          ontemplate() {},
          onresettemplate() {},
          ontest() {},
        },
      }).body.replace(/\s+/g, ' ');
    const oracle = panelWith('oracle');
    expect(oracle).toContain('data-testid="analyzer-privileged"');
    expect(oracle).toMatch(/<strong>Privileged\.<\/strong> The oracle reads the environment’s hidden state/);
    expect(oracle).toContain(`>${esc(fieldMeta('analyzer').optionLabels!.oracle)}</option>`);
    expect(fieldMeta('analyzer').optionLabels!.oracle).toMatch(/privileged/);
    expect(fieldMeta('analyzer').help).toMatch(/oracle is PRIVILEGED: it reads the environment's hidden state/);
    for (const key of ['analyzerUrl', 'analyzerModel', 'analyzerTimeoutMs'] as const)
      expect(oracle, key).not.toContain(`>${esc(fieldMeta(key).label)}</label>`);
    for (const other of ['heuristic', 'http'] as const)
      expect(panelWith(other), other).not.toContain('analyzer-privileged');
  });
});
