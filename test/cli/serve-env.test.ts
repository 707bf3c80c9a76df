/**
 * `npm run serve`'s environment server (cli/serve/env-routes.ts), over HTTP: the AgentGym-shaped happy path, 128
 * environments stepping in lockstep to the end with the expert's actions, every refusal, and the same transcript as
 * `npm run play` for the same task and actions.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { play } from '../../cli/play';
import { invalidActionAnswer } from '../../cli/serve/analyzer';
import { ENV_SPECS, getEnvSpec } from '../../src/core/envs/registry';
import { TRAIN_TASK_INDICES, type Env, type Expert } from '../../src/core/envs/types';
import { get, post, testServer } from '../helpers/serve';

let srv: Awaited<ReturnType<typeof testServer>>;
/** `text` as a regular expression matching it literally. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
beforeAll(async () => {
  srv = await testServer({ expert: true });
});
afterAll(() => srv.close());

describe('environment server: happy path', () => {
  it('create → reset → step with the expert to success; observation, available actions, close', async () => {
    const c = await post(srv.base, '/create', { env: 'household', preset: 'easy' });
    expect(c).toEqual({ status: 200, body: { id: expect.any(Number), env: 'household', preset: 'easy' } });
    // left out, the env and preset are the defaults, and the answer names them
    const d = await post(srv.base, '/create', {});
    expect(d).toEqual({ status: 200, body: { id: c.body.id + 1, env: 'household', preset: 'easy' } });
    expect((await post(srv.base, '/create', { env: 'searchqa' })).body).toEqual({
      id: c.body.id + 2,
      env: 'searchqa',
      preset: 'default',
    });
    await post(srv.base, '/close', { env_idx: d.body.id });
    await post(srv.base, '/close', { env_idx: d.body.id + 1 });
    const id = c.body.id;
    const r = await post(srv.base, '/reset', { env_idx: id, split: 'train', index: 357 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id,
      task: 'put a laptop in sidetable.',
      task_type: 'pick',
      observation:
        'You are in the middle of a room. Looking quickly around you, you see a desk 1, a shelf 1, and a sidetable 1.',
      admissible_actions: ['go to desk 1', 'go to shelf 1', 'go to sidetable 1'],
      available_actions: ['go to desk 1', 'go to shelf 1', 'go to sidetable 1'],
      max_steps: 10,
    });
    const actions = ['go to desk 1', 'take laptop 1 from desk 1', 'go to sidetable 1', 'move laptop 1 to sidetable 1'];
    const expert: string[] = [];
    let last;
    for (const a of actions) {
      expert.push((await get(srv.base, `/expert_action?env_idx=${id}`)).body.action);
      last = await post(srv.base, '/step', { env_idx: id, action: a });
      expect(last.status).toBe(200);
    }
    expect(expert).toEqual(actions);
    expect(last!.body).toEqual({
      observation: 'You move the laptop 1 to the sidetable 1.',
      reward: 1,
      done: true,
      info: { won: true, is_action_valid: true, task_type: 'pick', admissible_actions: [], steps: 4, max_steps: 10 },
    });
    expect(await get(srv.base, `/observation?env_idx=${id}`)).toEqual({
      status: 200,
      body: 'You move the laptop 1 to the sidetable 1.',
    });
    expect(await post(srv.base, '/close', { env_idx: id })).toEqual({ status: 200, body: { closed: true } });
  });

  it("an invalid action is answered, not valid, and counts as a step; AgentGym's `id` names the env", async () => {
    const { body } = await post(srv.base, '/create', { env: 'household', preset: 'easy' });
    await post(srv.base, '/reset', { id: body.id, split: 'test-seen', index: 0 });
    const s = await post(srv.base, '/step', { id: body.id, action: 'xyzzy' });
    expect(s.body).toMatchObject({ observation: 'Nothing happens.', reward: 0, done: false });
    expect(s.body.info).toMatchObject({ won: false, is_action_valid: false, steps: 1 });
  });

  it("shop answers GET /available_actions in WebShop's {has_search_bar, clickables} shape", async () => {
    const { body } = await post(srv.base, '/create', { env: 'shop' });
    const r = await post(srv.base, '/reset', { env_idx: body.id, index: 3 });
    expect(r.body.admissible_actions).toEqual(['search[']);
    expect(r.body.available_actions).toEqual({ has_search_bar: true, clickables: ['search'] });
    const search = (await get(srv.base, `/expert_action?env_idx=${body.id}`)).body.action;
    const s = await post(srv.base, '/step', { env_idx: body.id, action: search });
    const shown = await get(srv.base, `/available_actions?env_idx=${body.id}`);
    expect(shown.body.has_search_bar).toBe(false);
    expect(shown.body.clickables).toEqual(s.body.info.admissible_actions.map((a: string) => a.slice(6, -1)));
    expect(shown.body.clickables).toContain('back to search');
  });

  it("a step's info holds the numbers the env reports (searchqa's answer scores on its last step)", async () => {
    const id = (await post(srv.base, '/create', { env: 'searchqa' })).body.id;
    await post(srv.base, '/reset', { env_idx: id, split: 'test-seen', index: 2 });
    let s;
    do
      s = await post(srv.base, '/step', {
        env_idx: id,
        action: (await get(srv.base, `/expert_action?env_idx=${id}`)).body.action,
      });
    while (!s.body.done);
    expect(s.body).toMatchObject({ reward: 1, done: true, info: { won: true, em: 1, f1: 1, subEm: 1 } });
  });

  it('GET /health and /version list the bounds and every registered env', async () => {
    expect((await get(srv.base, '/health')).body).toMatchObject({
      status: 'ok',
      max_envs: 1024,
      idle_timeout_s: 600,
      memory: { rss: expect.any(Number), heap_used: expect.any(Number) },
    });
    const v = (await get(srv.base, '/version')).body;
    expect(v.envs.map((e: { name: string }) => e.name)).toEqual(ENV_SPECS.map((s) => s.name));
    const h = v.envs.find((e: { name: string }) => e.name === 'household');
    expect(h).toMatchObject({
      presets: ['default', 'easy', 'easy-pick2'],
      default_preset: 'easy',
      max_steps: { easy: 10 },
    });
    expect(h.task_types.easy).toEqual(['pick']);
    expect(v.envs.map((e: { name: string; max_steps: Record<string, number> }) => [e.name, e.max_steps])).toEqual([
      ['household', { default: 30, easy: 10, 'easy-pick2': 15 }],
      ['shop', { default: 15 }],
      ['searchqa', { default: 4 }],
    ]);
  });

  it("docs/scale-out.md's env.max_steps list is every env's and preset's, as GET /version answers", async () => {
    const v = (await get(srv.base, '/version')).body as { envs: { name: string; max_steps: Record<string, number> }[] };
    const list = v.envs
      .map(
        (e) =>
          `${e.name}: ${Object.entries(e.max_steps)
            .map(([p, n]) => `${p} ${n}`)
            .join(', ')}`,
      )
      .join('; ');
    expect(list).toBe('household: default 30, easy 10, easy-pick2 15; shop: default 15; searchqa: default 4');
    const docs = readFileSync('docs/scale-out.md', 'utf8').replace(/\s+/g, ' ');
    expect(docs).toContain(`\`env.max_steps\` must be the env's own (\`GET /version\` → \`max_steps\`: ${list})`);
  });
});

/** One server env mirrored by a local env of the same task, whose expert chooses the actions. */
interface Mirror {
  id: number;
  local: Env;
  expert: Expert;
  done: boolean;
  won: boolean;
  reward: number;
}

describe('environment server: 128 environments in lockstep', () => {
  it('16 tasks × 8 environments each, every registered env and preset, all solved by the expert', async () => {
    const combos = ENV_SPECS.flatMap((s) => s.presets.map((p) => ({ spec: s, preset: p })));
    const mirrors: Mirror[] = [];
    await Promise.all(
      Array.from({ length: 128 }, async (_, k) => {
        const { spec, preset } = combos[Math.floor(k / 8) % combos.length];
        const index = 1000 + Math.floor(k / 8); // 8 envs per task: a verl-agent group
        const id = (await post(srv.base, '/create', { env: spec.name, preset })).body.id;
        const r = await post(srv.base, '/reset', { env_idx: id, split: 'test-unseen', index });
        const local = spec.create(preset);
        expect(r.body.observation).toBe(local.reset({ split: 'test-unseen', index }).observation);
        mirrors[k] = { id, local, expert: spec.expert(local), done: false, won: false, reward: 0 };
      }),
    );
    let turns = 0;
    while (mirrors.some((m) => !m.done)) {
      turns++;
      await Promise.all(
        mirrors
          .filter((m) => !m.done)
          .map(async (m) => {
            const action = m.expert.act();
            const want = m.local.step(action);
            const got = (await post(srv.base, '/step', { env_idx: m.id, action })).body;
            expect(got.observation).toBe(want.observation);
            expect(got.info.admissible_actions).toEqual(m.local.admissibleActions());
            [m.done, m.won, m.reward] = [got.done, got.info.won, m.reward + got.reward];
          }),
      );
    }
    expect(mirrors.filter((m) => m.won).length).toBe(128);
    expect(mirrors.map((m) => m.reward)).toEqual(mirrors.map(() => 1));
    expect(turns).toBeGreaterThan(1);
    expect(srv.pool.size).toBeGreaterThanOrEqual(128);
    for (const m of mirrors) expect((await post(srv.base, '/close', { env_idx: m.id })).status).toBe(200);
  });
});

describe('environment server: refusals', () => {
  const err = (status: number, re: RegExp) => ({ status, body: { error: expect.stringMatching(re) } });

  it('an unknown id, a closed env, a step before reset and after done', async () => {
    expect(await post(srv.base, '/step', { env_idx: 987654, action: 'look' })).toEqual(
      err(404, /^POST \/step: no env 987654; ids come from POST \/create/),
    );
    const id = (await post(srv.base, '/create', { env: 'household', preset: 'easy' })).body.id;
    expect(await post(srv.base, '/step', { env_idx: id, action: 'look' })).toEqual(
      err(409, /has no task yet; POST \/reset it to a task first/),
    );
    await post(srv.base, '/reset', { env_idx: id, split: 'train', index: 357 });
    for (const a of ['go to desk 1', 'take laptop 1 from desk 1', 'go to sidetable 1', 'move laptop 1 to sidetable 1'])
      await post(srv.base, '/step', { env_idx: id, action: a });
    expect(await post(srv.base, '/step', { env_idx: id, action: 'look' })).toEqual(
      err(409, /episode is done \(success after 4 steps\); POST \/reset it to start another task/),
    );
    await post(srv.base, '/close', { env_idx: id });
    expect(await post(srv.base, '/step', { env_idx: id, action: 'look' })).toEqual(
      err(404, new RegExp(`env ${id} was closed by POST /close; POST /create a new one`)),
    );
    expect(await get(srv.base, `/observation?env_idx=${id}`)).toEqual(err(404, /was closed/));
    expect(await post(srv.base, '/close', { env_idx: id })).toEqual(err(404, /was closed/));
  });

  it('a bad or missing action type, bad JSON, a body that is not an object, an oversized body', async () => {
    const id = (await post(srv.base, '/create', {})).body.id;
    await post(srv.base, '/reset', { env_idx: id, index: 0 });
    const fix = new RegExp(`send e\\.g\\. \\{"env_idx":${id},"action":"go to desk 1"\\}$`);
    expect(await post(srv.base, '/step', { env_idx: id, action: 5 })).toEqual(
      err(400, /field "action" must be the action as text, at most 2000 characters, got 5;/),
    );
    expect(await post(srv.base, '/step', { env_idx: id })).toEqual(err(400, /field "action" is missing/));
    expect((await post(srv.base, '/step', { env_idx: id })).body.error).toMatch(fix);
    expect(await post(srv.base, '/step', { env_idx: -1, action: 'look' })).toEqual(
      err(400, /field "env_idx" must be an integer ≥ 0, the id POST \/create answered, got -1/),
    );
    expect(await post(srv.base, '/step', '{"env_idx": 0,')).toEqual(err(400, /^POST \/step: the body is not JSON/));
    expect(await post(srv.base, '/step', '[1, 2]')).toEqual(err(400, /the body must be a JSON object, got \[1,2\]/));
    expect(await post(srv.base, '/step', { env_idx: id, action: `search[${'x'.repeat(1993)}]` })).toEqual({
      status: 400,
      body: {
        error:
          'POST /step: field "action" must be the action as text, at most 2000 characters, got a text of 2001 ' +
          `characters; send e.g. {"env_idx":${id},"action":"go to desk 1"}`,
      },
    });
    const big = JSON.stringify({ env_idx: id, action: 'x'.repeat(70_000) });
    expect(await post(srv.base, '/step', big)).toEqual(err(413, /over 64 KiB, the most this route takes/));
    // The refused body cost no step.
    expect((await post(srv.base, '/step', { env_idx: id, action: 'look' })).body.info.steps).toBe(1);
  });

  it("a refused step's example: an action of the env env_idx names, else the default env's, said so", async () => {
    const shop = (await post(srv.base, '/create', { env: 'shop' })).body.id;
    const qa = (await post(srv.base, '/create', { env: 'searchqa' })).body.id;
    await post(srv.base, '/reset', { env_idx: shop, index: 0 });
    expect((await post(srv.base, '/step', { env_idx: shop })).body.error).toBe(
      'POST /step: field "action" is missing (the action as text, at most 2000 characters); send e.g. ' +
        `{"env_idx":${shop},"action":"search[non gmo low acid coffee beans 16 ounce dark roast]"}`,
    );
    // No task yet is no matter: the env is known from POST /create; `id` is read as env_idx.
    expect((await post(srv.base, '/step', { id: qa, action: 7 })).body.error).toBe(
      'POST /step: field "action" must be the action as text, at most 2000 characters, got 7; send e.g. ' +
        `{"env_idx":${qa},"action":"search[Falcon Regatta]"}`,
    );
    const other =
      'send e.g. {"env_idx":0,"action":"go to desk 1"} (an action of household/easy; another env\'s actions are ' +
      'in the admissible_actions its POST /reset answered)';
    expect((await post(srv.base, '/step', '{"env_idx": 0,')).body.error).toMatch(new RegExp(`; ${escape(other)}$`));
    expect((await post(srv.base, '/step', { env_idx: 987654 })).body.error).toBe(
      `POST /step: field "action" is missing (the action as text, at most 2000 characters); ${other}`,
    );
    for (const e of [shop, qa]) await post(srv.base, '/close', { env_idx: e });
  });

  it('an unknown env, preset or split; a missing or bad query parameter; an unknown route or method', async () => {
    expect(await post(srv.base, '/create', { env: 'nope' })).toEqual(
      err(400, /unknown env "nope"; accepted: household, shop/),
    );
    expect(await post(srv.base, '/create', { env: 'household', preset: 'hard' })).toEqual(
      err(
        400,
        /env household has no preset "hard"; accepted: default, easy, easy-pick2 \(or leave preset out for easy\)/,
      ),
    );
    const id = (await post(srv.base, '/create', {})).body.id;
    expect(await post(srv.base, '/reset', { env_idx: id, split: 'tran', index: 0 })).toEqual(
      err(400, /unknown split "tran"; accepted: train, test-seen, test-unseen, val/),
    );
    expect(await post(srv.base, '/reset', { env_idx: id, index: 1.5 })).toEqual(err(400, /field "index" must be/));
    expect(await get(srv.base, '/available_actions')).toEqual(err(400, /query parameter "env_idx" is missing/));
    expect(await get(srv.base, '/observation?env_idx=x')).toEqual(err(400, /must be an integer ≥ 0/));
    // env and preset on /reset are checked against the ones /create made, never ignored nor changed
    const hh = await post(srv.base, '/create', { env: 'household', preset: 'easy' });
    expect(await post(srv.base, '/reset', { env_idx: hh.body.id, index: 0, env: 'shop' })).toEqual(
      err(
        400,
        new RegExp(
          `^POST /reset: field "env" is "shop", but env ${hh.body.id} is household/easy \\(its env and preset are ` +
            'set by POST /create\\); POST /create \\{"env":"shop"\\} for that one, or leave the ' +
            'field out$',
        ),
      ),
    );
    expect(await post(srv.base, '/reset', { env_idx: hh.body.id, index: 0, preset: 'default' })).toEqual(
      err(
        400,
        /"preset" is "default", but env \d+ is household\/easy .* \/create \{"env":"household","preset":"default"\}/,
      ),
    );
    const same = await post(srv.base, '/reset', { env_idx: hh.body.id, index: 0, env: 'household', preset: 'easy' });
    expect([same.status, same.body.id]).toEqual([200, hh.body.id]);
    await post(srv.base, '/close', { env_idx: hh.body.id });
    // a parameter sent twice, under its name or its alias: which one was meant cannot be told
    expect(await get(srv.base, `/observation?env_idx=${id}&env_idx=9`)).toEqual(
      err(
        400,
        new RegExp(
          `^GET /observation: query parameter "env_idx" is sent 2 times \\(env_idx="${id}", env_idx="9"\\); ` +
            'send it once, e.g. GET /observation\\?env_idx=0$',
        ),
      ),
    );
    expect(await get(srv.base, `/available_actions?id=${id}&env_idx=${id}`)).toEqual(
      err(400, new RegExp(`is sent 2 times \\(id="${id}", env_idx="${id}"\\)`)),
    );
    expect(await get(srv.base, `/available_actions?env_idx=${id}`)).toEqual(err(409, /has no task yet/));
    expect(await get(srv.base, '/nope')).toEqual(err(404, /^no route GET \/nope; the routes: \/, \/health/));
    // a near miss of a route (case, a trailing slash, `-` for `_`, one edit) names it, with a method it takes
    for (const [method, path, meant] of [
      ['POST', '/Create', 'POST /create'],
      ['POST', '/create/', 'POST /create'],
      ['GET', '/health/', 'GET /health'],
      ['GET', '/available-actions', 'GET /available_actions'],
      ['POST', '/stepp', 'POST /step'],
      ['GET', '/Reset', 'POST /reset'],
    ]) {
      const r = await fetch(srv.base + path, { method, body: method === 'POST' ? '{}' : undefined });
      expect([r.status, ((await r.json()) as { error: string }).error]).toEqual([
        404,
        expect.stringMatching(new RegExp(`^no route ${method} ${path}; did you mean ${meant}\\? the routes: /, `)),
      ]);
    }
    // `/` is never the one meant (every short path is one edit from it)
    expect(await get(srv.base, '/x/')).toEqual(err(404, /^no route GET \/x\/; the routes: \/, /));
    const del = await fetch(`${srv.base}/step`, { method: 'DELETE' });
    expect([del.status, del.headers.get('allow')]).toEqual([405, 'POST']);
    expect(await del.json()).toEqual({ error: 'DELETE /step is not served; /step takes POST' });
    const put = await fetch(`${srv.base}/health`, { method: 'PUT' });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect(await put.json()).toEqual({ error: 'PUT /health is not served; /health takes GET, HEAD' });
    // a misspelt field is refused with the one meant (never read as absent: {"Env": "searchqa"} is no household);
    // a field no route reads and that is no near miss is ignored, as clients written for other servers send their own
    expect(await post(srv.base, '/create', { Env: 'searchqa' })).toEqual(
      err(
        400,
        new RegExp(
          '^POST /create: field "Env" is not one this route reads; did you mean "env" \\(a registered env ' +
            'name\\)\\? send e\\.g\\. \\{"env":"household"\\}$',
        ),
      ),
    );
    expect(await post(srv.base, '/create', { envv: 'shop' })).toEqual(err(400, /field "envv" .* did you mean "env"/));
    // a longer name that starts with the field's (other servers' names for it)
    for (const sent of ['env_name', 'environment', 'Enviroment'])
      expect(await post(srv.base, '/create', { [sent]: 'shop' })).toEqual(
        err(400, new RegExp(`field "${sent}" is not one this route reads; did you mean "env"`)),
      );
    const extra = await post(srv.base, '/create', { env: 'shop', client: 'agentgym' });
    expect([extra.status, extra.body.env]).toEqual([200, 'shop']);
    await post(srv.base, '/close', { env_idx: extra.body.id });
    // a byte order mark before the JSON is ignored (RFC 8259 §8.1)
    const bom = await fetch(`${srv.base}/create`, { method: 'POST', body: '\uFEFF{"env":"shop"}' });
    const bomBody = (await bom.json()) as { id: number; env: string };
    expect([bom.status, bomBody.env]).toEqual([200, 'shop']);
    await post(srv.base, '/close', { env_idx: bomBody.id });
    // a path starting with // is that path (no route), never a host name taken off it (`//health` is not `/`)
    expect(await get(srv.base, '//health')).toEqual(
      err(404, /^no route GET \/\/health; did you mean GET \/health\? the routes: /),
    );
    expect(await post(srv.base, '//evil.com/create', {})).toEqual(err(404, /^no route POST \/\/evil\.com\/create;/));
    // HEAD is GET without a body (RFC 9110 §9.3.2); /version's body is fixed (/health's memory figure moves)
    const head = await fetch(`${srv.base}/version`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    expect(Number(head.headers.get('content-length'))).toBe(
      Buffer.byteLength(JSON.stringify((await get(srv.base, '/version')).body)),
    );
  });

  it('train indices stop at TRAIN_TASK_INDICES (val lies past it); 1e16 named as unsafe', async () => {
    const id = (await post(srv.base, '/create', { env: 'household', preset: 'easy' })).body.id;
    expect(await post(srv.base, '/reset', { env_idx: id, split: 'train', index: TRAIN_TASK_INDICES })).toEqual({
      status: 400,
      body: {
        error:
          'POST /reset: field "index" must be below 1000000 for split train, got 1000000: train indices from ' +
          '1000000 on are the val tasks; send split: "val" with index 0 for that task',
      },
    });
    expect((await post(srv.base, '/reset', { env_idx: id, split: 'train', index: 999_999 })).status).toBe(200);
    expect((await post(srv.base, '/reset', { env_idx: id, split: 'val', index: 0 })).status).toBe(200);
    expect(await post(srv.base, '/reset', { env_idx: id, index: 1e16 })).toEqual({
      status: 400,
      body: {
        error:
          'POST /reset: field "index" must be a safe integer in 0..9007199254740991 (below 1000000 for split ' +
          "train; the tasks past it are split val's), got 10000000000000000; send e.g. " +
          '{"env_idx":0,"split":"train","index":7}',
      },
    });
  });

  it('a near-miss env, preset or split name gets a did-you-mean, look-alike letters named', async () => {
    const refusal = (error: string) => ({ status: 400, body: { error } });
    expect(await post(srv.base, '/create', { env: 'Household' })).toEqual(
      refusal('POST /create: unknown env "Household"; accepted: household, shop, searchqa; did you mean household?'),
    );
    expect(await post(srv.base, '/create', { env: 'h\u043eusehold' })).toEqual(
      refusal(
        'POST /create: unknown env "h\u043eusehold"; accepted: household, shop, searchqa; did you mean household? ' +
          '(written with look-alikes of Latin letters: \u043e U+043E)',
      ),
    );
    expect(await post(srv.base, '/create', { env: 'household', preset: 'Easy' })).toEqual(
      refusal(
        'POST /create: env household has no preset "Easy"; accepted: default, easy, easy-pick2 ' +
          '(or leave preset out for easy); did you mean easy?',
      ),
    );
    const id = (await post(srv.base, '/create', {})).body.id;
    expect(await post(srv.base, '/reset', { env_idx: id, split: 'Test-Seen', index: 0 })).toEqual(
      refusal(
        'POST /reset: unknown split "Test-Seen"; accepted: train, test-seen, test-unseen, val; did you mean test-seen?',
      ),
    );
  });

  it('--max-envs is a bound (429), idle environments are reclaimed, /expert_action is off by default', async () => {
    const small = await testServer({ maxEnvs: 2, idleSeconds: 1 });
    try {
      const t0 = Date.now(); // before the environments' last use
      for (let i = 0; i < 2; i++) expect((await post(small.base, '/create', {})).status).toBe(200);
      expect(await post(small.base, '/create', {})).toEqual(err(429, /2 environments are open.*--max-envs 2/));
      // Reclaimed by a sweep (every 250 ms) once 1 s idle: never sooner, and polled, not timed, on a busy machine.
      await expect.poll(() => small.pool.size, { timeout: 20_000, interval: 50 }).toBe(0);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
      expect(await post(small.base, '/step', { env_idx: 0, action: 'look' })).toEqual(
        err(404, /env 0 was reclaimed after 1 s unused \(--idle-timeout 1\)/),
      );
      const id = (await post(small.base, '/create', {})).body.id;
      expect(id).toBe(2); // ids are never reused
      await post(small.base, '/reset', { env_idx: id, index: 0 });
      expect(await get(small.base, `/expert_action?env_idx=${id}`)).toEqual(err(403, /start the server with --expert/));
    } finally {
      await small.close();
    }
  });
});

/** An unclosed search (no `]`): invalid in every env, as searchqa's and WebShop's rules judge the whole string. */
const UNCLOSED = 'search[hidden lighthouse';

describe('environment server: the same transcript as npm run play', () => {
  for (const spec of ENV_SPECS)
    it(`${spec.name}: test-seen task 5, an unclosed search[ then the expert's actions`, async () => {
      const preset = spec.defaultPreset;
      const local = spec.create(preset);
      local.reset({ split: 'test-seen', index: 5 });
      const expert = getEnvSpec(spec.name).expert(local);
      const actions: string[] = [UNCLOSED];
      expect(local.step(UNCLOSED)).toMatchObject({ valid: false, done: false, reward: 0 });
      while (!local.step((actions[actions.length] = expert.act())).done);
      let out = '';
      const code = await play(
        ['--env', spec.name, '--preset', preset, '--split', 'test-seen', '--task', '5', '--json'],
        {
          lines: (async function* () {
            yield* actions.map((action) => JSON.stringify({ action }));
          })(),
          write: (s) => (out += s),
          error: () => {},
        },
      );
      expect(code).toBe(0);
      const events = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const id = (await post(srv.base, '/create', { env: spec.name, preset })).body.id;
      const reset = (await post(srv.base, '/reset', { env_idx: id, split: 'test-seen', index: 5 })).body;
      const steps = [];
      for (const action of actions) steps.push((await post(srv.base, '/step', { env_idx: id, action })).body);
      const served = [
        {
          task: reset.task,
          taskType: reset.task_type,
          observation: reset.observation,
          admissible: reset.admissible_actions,
        },
        ...steps.map((s) => ({
          observation: s.observation,
          reward: s.reward,
          done: s.done,
          valid: s.info.is_action_valid,
        })),
      ];
      const played = [
        {
          task: events[0].task,
          taskType: events[0].taskType,
          observation: events[0].observation,
          admissible: events[0].admissibleActions,
        },
        ...events
          .slice(1, -1)
          .map((e) => ({ observation: e.observation, reward: e.reward, done: e.done, valid: e.valid })),
      ];
      expect(served).toEqual(played);
      expect(served[1]).toEqual({ observation: invalidActionAnswer(spec), reward: 0, done: false, valid: false });
      expect(events[1].action).toBe(UNCLOSED);
      expect(events.at(-1)).toMatchObject({ event: 'summary', success: true, steps: actions.length, invalid: 1 });
    });

  it("searchqa, shop: only play's text mode closes an unclosed search[ (shown), as the page's Play view", async () => {
    for (const env of ['searchqa', 'shop']) {
      let out = '';
      await play(['--env', env, '--split', 'test-seen', '--task', '5'], {
        lines: (async function* () {
          yield UNCLOSED;
        })(),
        write: (s) => (out += s),
        error: () => {},
      });
      expect(out).toContain(`> Action: ${UNCLOSED}]\n`);
      expect(out.trimEnd().split('\n').at(-1)).toMatch(/after 1 of \d+ steps, total reward 0 \(0 invalid actions\)\.$/);
      const id = (await post(srv.base, '/create', { env })).body.id;
      await post(srv.base, '/reset', { env_idx: id, split: 'test-seen', index: 5 });
      const r = (await post(srv.base, '/step', { env_idx: id, action: UNCLOSED })).body;
      expect([r.observation, r.info.is_action_valid]).toEqual([invalidActionAnswer(getEnvSpec(env)), false]);
    }
  });

  it('searchqa: the first ] ends an action in play and on the server alike; a [ inside is searched', async () => {
    const twice = 'search[Azure Bank] search[Mira Yarrow]'; // two commands: text after the first, invalid
    const bracket = 'search[Azure [Bank'; // play closes it: search[Azure [Bank]
    let out = '';
    await play(['--env', 'searchqa', '--split', 'test-seen', '--task', '3'], {
      lines: (async function* () {
        yield* [twice, bracket];
      })(),
      write: (s) => (out += s),
      error: () => {},
    });
    const azureBank = [
      'Doc 1(Title: Azure Bank) The Azure Bank was founded by Mira Yarrow in 1851 and is based in Bramble Ford.',
      'Doc 2(Title: Azure League) The Azure League was founded by Elsa Ulver in 1873 and is based in Ash Point.',
      'Doc 3(Title: Azure Club) The Azure Club was founded by Petra Everard in 1926 and is based in Copper Harbour.',
    ].join('\n');
    expect(out).toContain(`> ${invalidActionAnswer(getEnvSpec('searchqa'))}\n`);
    expect(out).toContain(`> Action: ${bracket}]\n${azureBank}\n`);
    expect(out.trimEnd().split('\n').at(-1)).toBe(
      'End of input: no success after 2 of 4 steps, total reward 0 (1 invalid action).',
    );
    const id = (await post(srv.base, '/create', { env: 'searchqa' })).body.id;
    await post(srv.base, '/reset', { env_idx: id, split: 'test-seen', index: 3 });
    const served = [];
    for (const action of [twice, `${bracket}]`]) {
      const r = (await post(srv.base, '/step', { env_idx: id, action })).body;
      served.push([r.observation, r.info.is_action_valid]);
    }
    expect(served).toEqual([
      [invalidActionAnswer(getEnvSpec('searchqa')), false],
      [azureBank, true],
    ]);
  });
});
