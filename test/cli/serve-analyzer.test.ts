/**
 * `npm run serve`'s `/v1/chat/completions` (cli/serve/analyzer.ts): the page's `http` analyzer pointed at it gives
 * the skills of the env's embedded heuristic analyzer — exactly, with `{group}` in the template; for the default
 * template, those of the heuristic on the trajectory alone — and the OPID reference code's prompt is answered in its
 * keys. Refusals in OpenAI's error shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAnalyzer } from '../../src/core/analyzer';
import { HttpAnalyzer, testConnection } from '../../src/core/analyzer/http';
import { DEFAULT_HTTP_PROMPT, GROUP_LINE_PREFIX, promptEnv, renderGroup } from '../../src/core/analyzer/prompt';
import { ENV_SPECS, getEnvSpec } from '../../src/core/envs/registry';
import type { AnalyzerGroup, AnalyzerTrajectory, EnvSpec } from '../../src/core/envs/types';
import { invalidActionAnswer } from '../../cli/serve/analyzer';
import { noisyGroup, post, get, testServer } from '../helpers/serve';

let srv: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  srv = await testServer();
});
afterAll(() => srv.close());

/** The default template with the `{group}` line at the end of the user message. */
const WITH_GROUP = { system: DEFAULT_HTTP_PROMPT.system, user: `${DEFAULT_HTTP_PROMPT.user}\n{group}` };

/** An http analyzer at the test server for `spec`/`preset`, with skills never cut (maxSkillChars). */
function httpAt(spec: EnvSpec, preset: string, template = WITH_GROUP, failedOnly = false) {
  return new HttpAnalyzer({
    baseUrl: srv.base,
    model: spec.name,
    maxStepSkills: 5,
    failedOnly,
    maxSkillChars: 100_000,
    concurrency: 8,
    promptTemplate: template,
    env: promptEnv(spec, preset),
  });
}

const withAnalyzer = ENV_SPECS.filter((s) => s.analyzer !== undefined);

describe('/v1/chat/completions with {group}: the same skills as the heuristic analyzer', () => {
  for (const spec of withAnalyzer)
    for (const preset of spec.presets)
      it(`${spec.name}/${preset}: 3 groups of 8, successes and failures`, async () => {
        for (const index of [11, 12, 13]) {
          const group = noisyGroup(spec, preset, index, index);
          const wins = group.trajectories.filter((t) => t.success).length;
          expect(wins).toBeGreaterThan(0);
          expect(wins).toBeLessThan(group.trajectories.length);
          const direct = await spec.analyzer!({ maxStepSkills: 5 }).analyze(group);
          const http = httpAt(spec, preset);
          expect(await http.analyze(group)).toEqual(direct);
          expect(http.stats()).toMatchObject({ calls: 8, failures: 0 });
          const failedOnly = await httpAt(spec, preset, WITH_GROUP, true).analyze(group);
          expect(failedOnly).toEqual(await spec.analyzer!({ maxStepSkills: 5, failedOnly: true }).analyze(group));
        }
      });

  it("the page's analyzer (makeAnalyzer, skills cut at 200 characters) on household/easy: the same", async () => {
    const spec = getEnvSpec('household');
    const page = makeAnalyzer(
      {
        analyzer: 'http',
        maxStepSkills: 5,
        failedOnly: false,
        analyzerUrl: srv.base,
        analyzerModel: 'household',
        analyzerTimeoutMs: 20_000,
        env: 'household',
        preset: 'easy',
      },
      undefined,
      WITH_GROUP,
    );
    for (const index of [21, 22]) {
      const group = noisyGroup(spec, 'easy', index, 7);
      expect(await page.analyze(group)).toEqual(await spec.analyzer!({ maxStepSkills: 5 }).analyze(group));
    }
  });

  it('renders {group} as one opd-group line holding the group without ref', () => {
    const group = noisyGroup(getEnvSpec('household'), 'easy', 3, 1);
    group.trajectories[0].ref = { split: 'train', index: 3 };
    const line = renderGroup({ group, index: 2 }, 4);
    expect(line.startsWith(GROUP_LINE_PREFIX)).toBe(true);
    expect(line).not.toContain('\n');
    const body = JSON.parse(line.slice(GROUP_LINE_PREFIX.length));
    expect(body).toMatchObject({ v: 1, env: 'household', index: 2, maxStepSkills: 4 });
    expect(body.trajectories).toEqual(group.trajectories.map(({ ref: _ref, ...t }) => t));
  });
});

describe('/v1/chat/completions with the default template: the heuristic on the trajectory alone', () => {
  for (const preset of ['easy', 'default'])
    it(`household/${preset}: observations under the 300-character cut, each trajectory comes back whole`, async () => {
      const spec = getEnvSpec('household');
      const group = noisyGroup(spec, preset, 31, 5);
      const got = await httpAt(spec, preset, DEFAULT_HTTP_PROMPT).analyze(group);
      const alone = await Promise.all(
        group.trajectories.map(
          async (t) => (await spec.analyzer!({ maxStepSkills: 5 }).analyze({ ...group, trajectories: [t] }))[0],
        ),
      );
      expect(got).toEqual(alone);
      // Without its siblings a failed trajectory gets other skills than in its group: what {group} is for.
      expect(got).not.toEqual(await spec.analyzer!({ maxStepSkills: 5 }).analyze(group));
    });
});

/**
 * The OPID reference code's episode-analysis prompt for a trajectory, as jinyangwu/OPID `opid/analysis.py`
 * `_build_episode_analysis_prompt` and `_format_episode_steps` write it (the response wrapped as verl-agent's prompts
 * ask: `<think>…</think><action>…</action>`).
 */
function opidPrompt(t: AnalyzerTrajectory, k: number): string {
  const steps = t.steps
    .map(
      (s, i) =>
        `Step ${i}\nObservation: ${s.observation}\nResponse: <think>next</think>\n<action>${s.action}</action>\n` +
        `Return: ${s.return.toFixed(6)}\n`,
    )
    .join('');
  const kk = Math.min(k, t.steps.length);
  const skill = t.success
    ? 'extracts the successful trajectory into workflow: the core decision rule and action ordering that made it work.'
    : 'extracts the failed trajectory into avoidance rules: the core mistake and warning signs to avoid.';
  return [
    'Analyze the following agent episode and return ONLY valid JSON.',
    '',
    'You need to complete all three fields:',
    '1. Write a concise episode_summary.',
    `2. Write one episode_skill that ${skill}`,
    `3. Provide concise, action-oriented decision skills for at most ${kk} critical step(s) from the candidate set ` +
      'as entries in step_skills; use the full episode to infer the skill.',
    '',
    'Return format:',
    '{',
    '  "episode_summary": "string",',
    '  "episode_skill": "string",',
    '  "step_skills": {',
    '    "0": "skill for step 0",',
    '    "2": "skill for step 2"',
    '  }',
    '}',
    '',
    'Episode context:',
    `- Task description: ${t.task}`,
    `- episode_success: ${t.success ? 'success' : 'failure'}`,
    `- Candidate step indices: [${t.steps.map((_, i) => i).join(', ')}]`,
    `- Interaction trajectory: ${steps}`,
  ].join('\n');
}

describe('/v1/chat/completions with the OPID reference prompt', () => {
  it('answers episode_summary, episode_skill and step_skills: the heuristic on the trajectory shown', async () => {
    const spec = getEnvSpec('household');
    const group: AnalyzerGroup = noisyGroup(spec, 'default', 41, 3);
    for (const t of group.trajectories) {
      const r = await post(srv.base, '/v1/chat/completions', {
        model: 'household',
        messages: [{ role: 'user', content: opidPrompt(t, 3) }],
        max_completion_tokens: 4096,
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        object: 'chat.completion',
        model: 'household',
        choices: [{ finish_reason: 'stop' }],
      });
      const reply = JSON.parse(r.body.choices[0].message.content);
      // What the prompt shows: no final observation, validity read from the next observation, returns to 6 decimals.
      const shown = {
        ...t,
        finalObservation: '',
        steps: t.steps.map((s, i) => ({
          ...s,
          return: Number(s.return.toFixed(6)),
          valid: t.steps[i + 1]?.observation !== 'Nothing happens.',
        })),
      };
      const want = (
        await spec.analyzer!({ maxStepSkills: Math.min(3, t.steps.length) }).analyze({
          env: 'household',
          trajectories: [shown],
        })
      )[0]!;
      expect(reply).toEqual({
        episode_summary: expect.stringMatching(/^The agent (succeeded|failed) after \d+ steps/),
        episode_skill: want.episodeSkill,
        step_skills: Object.fromEntries(Object.entries(want.stepSkills)),
      });
      expect(reply.episode_skill).not.toBe('');
    }
  });
});

describe('/v1/chat/completions with the OPID reference prompt: invalid steps as the env answers them', () => {
  it("each env's answer to an inadmissible action, asked of the env", () => {
    expect(Object.fromEntries(ENV_SPECS.map((s) => [s.name, invalidActionAnswer(s)]))).toEqual({
      household: 'Nothing happens.',
      shop: 'Nothing happens.',
      searchqa:
        'My previous action is invalid. If I want to search, I should put the query between search[ and ]. ' +
        'If I want to give the final answer, I should put the answer between answer[ and ]. Let me try again.',
    });
  });

  it("searchqa: a step answered with Search-R1's invalid-action message counts as invalid", async () => {
    const spec = getEnvSpec('searchqa');
    const env = spec.create(spec.defaultPreset);
    const r = env.reset({ split: 'train', index: 4 });
    const expert = spec.expert(env);
    const steps: AnalyzerTrajectory['steps'] = [];
    let observation = r.observation;
    let success = false;
    // Two inadmissible actions, then the expert to the end.
    for (let k = 0; k < env.maxSteps && !success; k++) {
      const action = k < 2 ? ['look', 'go north'][k] : expert.act();
      const s = env.step(action);
      steps.push({ observation, action, valid: s.valid, return: 0 });
      observation = s.observation;
      success ||= s.success;
      if (s.done) break;
    }
    expect(steps.map((s) => s.valid).slice(0, 2)).toEqual([false, false]);
    const t: AnalyzerTrajectory = { task: r.task, success, finalObservation: observation, steps };
    const reply = await post(srv.base, '/v1/chat/completions', {
      model: 'searchqa',
      messages: [{ role: 'user', content: opidPrompt(t, 3) }],
    });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body.choices[0].message.content).episode_summary).toBe(
      `The agent ${success ? 'succeeded' : 'failed'} after ${steps.length} steps (2 invalid) on: ${r.task}`,
    );
  });
});

describe('/v1/chat/completions: models and refusals', () => {
  const chat = (body: unknown) => post(srv.base, '/v1/chat/completions', body);
  const trajectoryPrompt = () =>
    DEFAULT_HTTP_PROMPT.user
      .replace('{task}', 'put a laptop in sidetable.')
      .replace('{outcome}', 'failure')
      .replace('{steps}', 'step 0: obs="You are in the middle of a room." action="look" return=0.00')
      .replace('{final}', '"Nothing happens."')
      .replace('{K}', '2');

  it('GET /v1/models lists the envs with an embedded analyzer; the connection test is answered', async () => {
    expect((await get(srv.base, '/v1/models')).body.data.map((m: { id: string }) => m.id)).toEqual(
      withAnalyzer.map((s) => s.name),
    );
    expect(await testConnection({ baseUrl: srv.base, model: 'household' })).toMatchObject({
      ok: true,
      model: 'household',
    });
  });

  const NOT_FOUND =
    "not found: this server's models are the envs with an embedded analyzer: household, shop, searchqa " +
    '(GET /v1/models); send as "model" the env the trajectories come from';
  const notFound = (model: string, message = `model "${model}" ${NOT_FOUND}`) => ({
    status: 404,
    body: {
      error: {
        message,
        type: 'invalid_request_error',
        param: 'model',
        code: 'model_not_found',
      },
    },
  });

  it('GET /v1/models/{id}: the model object of a served env; another id is 404 model_not_found', async () => {
    expect(await get(srv.base, '/v1/models/shop')).toEqual({
      status: 200,
      body: { id: 'shop', object: 'model', created: 0, owned_by: 'opd-playground' },
    });
    // The models route's own fix (a GET sends no "model" field)
    const noModel = (id: string) =>
      notFound(
        id,
        `model "${id}" not found: this server's models are the envs with an embedded analyzer: household, shop, ` +
          'searchqa (GET /v1/models); ask for one of them: GET /v1/models/{name}',
      );
    expect(await get(srv.base, '/v1/models/gpt-4o')).toEqual(noModel('gpt-4o'));
    // An id is matched exactly, after percent-decoding; '__proto__' is no model.
    expect(await get(srv.base, '/v1/models/Shop')).toEqual(noModel('Shop'));
    expect(await get(srv.base, '/v1/models/__proto__')).toEqual(noModel('__proto__'));
    expect(await get(srv.base, '/v1/models/house%20hold')).toEqual(noModel('house hold'));
    // A malformed percent-encoding is no model either (not a server error): the id is named as sent.
    expect(await get(srv.base, '/v1/models/%E0%A4%A')).toEqual(noModel('%E0%A4%A'));
    expect(await get(srv.base, '/v1/models/shop%zz')).toEqual(noModel('shop%zz'));
    // Only one segment below /v1/models: a deeper path is no route; another method is named.
    // Both refusals in OpenAI's error shape, as every /v1 refusal; the 405 names the methods in Allow too.
    const deeper = await get(srv.base, '/v1/models/shop/x');
    expect(deeper.status).toBe(404);
    expect(deeper.body.error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    expect(deeper.body.error.message).toMatch(
      /^no route GET \/v1\/models\/shop\/x; the routes: .*\/v1\/models\/\{id\}/,
    );
    // /v1 itself (no slash) is in the family too
    const bare = await get(srv.base, '/v1');
    expect([bare.status, bare.body.error?.type]).toEqual([404, 'invalid_request_error']);
    expect(await post(srv.base, '/v1/models/shop', {})).toEqual({
      status: 405,
      body: {
        error: {
          message: 'POST /v1/models/shop is not served; /v1/models/shop takes GET, HEAD',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
    });
    const del = await fetch(`${srv.base}/v1/chat/completions`, { method: 'DELETE' });
    expect([del.status, del.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await del.json()).error.message).toBe(
      'DELETE /v1/chat/completions is not served; /v1/chat/completions takes POST',
    );
    // HEAD is GET without a body: the same status and headers
    const head = await fetch(`${srv.base}/v1/models/shop`, { method: 'HEAD' });
    const body = JSON.stringify({ id: 'shop', object: 'model', created: 0, owned_by: 'opd-playground' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([
      200,
      String(Buffer.byteLength(body)),
      '',
    ]);
    expect((await fetch(`${srv.base}/v1/models/gpt-4o`, { method: 'HEAD' })).status).toBe(404);
  });

  it("CORS: a page on another origin may call (the preflight answered, every reply allows '*')", async () => {
    const pre = await fetch(`${srv.base}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(pre.status).toBe(204);
    expect(Object.fromEntries([...pre.headers].filter(([k]) => k.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '600',
    });
    const models = await fetch(`${srv.base}/v1/models`, { headers: { origin: 'http://localhost:5173' } });
    expect([models.status, models.headers.get('access-control-allow-origin')]).toEqual([200, '*']);
    // a plain OPTIONS (no preflight) is a method the path does not take; a preflight of no route is a 404
    const plain = await fetch(`${srv.base}/v1/chat/completions`, { method: 'OPTIONS' });
    expect([plain.status, plain.headers.get('allow')]).toEqual([405, 'POST']);
    const nowhere = await fetch(`${srv.base}/v1/nope`, {
      method: 'OPTIONS',
      headers: { origin: 'http://x', 'access-control-request-method': 'POST' },
    });
    expect(nowhere.status).toBe(404);
  });

  it('an unknown model: 404 model_not_found in OpenAI shape, which the http analyzer names', async () => {
    expect(await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: trajectoryPrompt() }] })).toEqual(
      notFound('gpt-4o'),
    );
    const http = new HttpAnalyzer({ baseUrl: srv.base, model: 'gpt-4o', maxStepSkills: 2, maxRetries: 0 });
    const group = noisyGroup(getEnvSpec('household'), 'easy', 1, 1);
    expect((await http.analyze(group)).every((x) => x === null)).toBe(true);
    expect(Object.keys(http.stats().failureReasons)).toEqual([
      expect.stringMatching(/^HTTP 404 \(model "gpt-4o" not found/),
    ]);
  });

  it('an unknown model is 404 with a {group} line and for the connection test too (was answered)', async () => {
    const line = renderGroup({ group: noisyGroup(getEnvSpec('household'), 'easy', 1, 1), index: 0 }, 2);
    expect(await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: line }] })).toEqual(notFound('gpt-4o'));
    // The env's name in another case is another model, as OpenAI's model ids are exact.
    expect(await chat({ model: 'Household', messages: [{ role: 'user', content: line }] })).toEqual(
      notFound('Household'),
    );
    expect(await testConnection({ baseUrl: srv.base, model: 'gpt-4o' })).toMatchObject({ ok: false });
    const test = [{ role: 'user', content: 'Connection test. Reply with {"ok": true}.' }];
    expect(await chat({ model: 'gpt-4o', messages: test })).toEqual(notFound('gpt-4o'));
  });

  it('no model: 400 naming the field "model", as OpenAI requires it', async () => {
    expect(await chat({ messages: [{ role: 'user', content: trajectoryPrompt() }] })).toEqual({
      status: 400,
      body: {
        error: {
          message:
            'POST /v1/chat/completions: field "model" is missing (a served model: an env with an embedded analyzer ' +
            '(household, shop, searchqa; GET /v1/models)); send e.g. {"model":"household","messages":[{"role":' +
            '"user","content":"…"}]}',
          type: 'invalid_request_error',
          param: 'model',
          code: null,
        },
      },
    });
  });

  /** The default template's prompt for one trajectory of `env`'s default preset (task `index`, seeded noise). */
  const playgroundPrompt = (env: string, index: number) => {
    const spec = getEnvSpec(env);
    const t = noisyGroup(spec, spec.defaultPreset, index, index).trajectories[0];
    const steps = t.steps
      .map((s, i) => `step ${i}: obs=${JSON.stringify('…')} action=${JSON.stringify(s.action)} return=0.00`)
      .join('\n');
    const user = DEFAULT_HTTP_PROMPT.user
      .replace('{task}', t.task)
      .replace('{outcome}', t.success ? 'success' : 'failure')
      .replace('{steps}', steps)
      .replace('{final}', '"…"')
      .replace('{K}', '2');
    return { t, messages: [{ role: 'user', content: user }] };
  };

  it("another env's model for a trajectory whose actions are all another env's commands: 400 naming both", async () => {
    const { t, messages } = playgroundPrompt('household', 3);
    const n = t.steps.length;
    expect(n).toBeGreaterThan(1);
    const refusal = (model: string) => ({
      status: 400,
      body: {
        error: {
          message:
            `model "${model}" is the ${model} env's analyzer, but the trajectory's ${n} valid actions are all ` +
            `household commands and none is a ${model} command (the first: "${t.steps[0].action}"); send model ` +
            '"household", the env the trajectory comes from',
          type: 'invalid_request_error',
          param: 'model',
          code: null,
        },
      },
    });
    expect(await chat({ model: 'shop', messages })).toEqual(refusal('shop'));
    expect(await chat({ model: 'searchqa', messages })).toEqual(refusal('searchqa'));
    expect(await chat({ model: 'household', messages })).toMatchObject({ status: 200 });
    // The OPID prompt of a shop episode sent as household: the same refusal, naming shop.
    const shopT = noisyGroup(getEnvSpec('shop'), 'default', 5, 0).trajectories[0];
    const opid = await chat({ model: 'household', messages: [{ role: 'user', content: opidPrompt(shopT, 3) }] });
    expect(opid.status).toBe(400);
    expect(opid.body.error.message).toBe(
      `model "household" is the household env's analyzer, but the trajectory's ${shopT.steps.length} valid actions ` +
        `are all shop commands and none is a household command (the first: "${shopT.steps[0].action}"); send ` +
        'model "shop", the env the trajectory comes from',
    );
  });

  it('shop and searchqa share search[…]: searches alone name both; a fit to the model is answered', async () => {
    const searches = {
      task: 'Who wrote The Hidden Lighthouse?',
      success: false,
      finalObservation: '',
      steps: [
        { observation: 'Search with search[query].', action: 'search[hidden lighthouse]', valid: true, return: 0 },
      ],
    };
    const r = await chat({ model: 'household', messages: [{ role: 'user', content: opidPrompt(searches, 1) }] });
    expect(r.body.error.message).toBe(
      'model "household" is the household env\'s analyzer, but the trajectory\'s 1 valid action is a shop and ' +
        'searchqa command and none is a household command (the first: "search[hidden lighthouse]"); send model ' +
        '"shop" or "searchqa", the env the trajectory comes from',
    );
    // Searches only are a shop episode as much as a searchqa one: the model's analyzer answers.
    const asShop = await chat({ model: 'shop', messages: [{ role: 'user', content: opidPrompt(searches, 1) }] });
    expect(asShop.status).toBe(200);
    // An episode of inadmissible text only fits no env: the model's analyzer answers.
    const garbage = { ...searches, steps: [{ ...searches.steps[0], action: 'hello there' }] };
    const g = await chat({ model: 'shop', messages: [{ role: 'user', content: opidPrompt(garbage, 1) }] });
    expect(g.status).toBe(200);
  });

  it("an episode of another env sharing some of the model's commands: 400 naming that env (was answered)", async () => {
    const refusal = (model: string, n: number, not: string, first: string, send: string) =>
      `model "${model}" is the ${model} env's analyzer, but the trajectory's ${n} valid actions are all ${send} ` +
      `commands and ${not} (the first: "${first}"); send model "${send}", the env the trajectory comes from`;
    // A shop episode sent as searchqa: its search[…] is a searchqa command, its clicks are not.
    const shopT = noisyGroup(getEnvSpec('shop'), 'default', 5, 0).trajectories[0];
    expect(shopT.steps.map((s) => s.action)).toEqual([
      'search[machine wash relaxed fit hoodie yellow]',
      'click[b54f94]',
      'click[yellow]',
      'click[buy now]',
    ]);
    const asQa = await chat({ model: 'searchqa', messages: [{ role: 'user', content: opidPrompt(shopT, 3) }] });
    expect(asQa.status).toBe(400);
    expect(asQa.body.error).toEqual({
      message: refusal('searchqa', 4, '3 are not searchqa commands', 'click[b54f94]', 'shop'),
      type: 'invalid_request_error',
      param: 'model',
      code: null,
    });
    // A searchqa episode sent as shop, in the playground's default prompt: its answer[…] is not a shop command.
    const { t, messages } = playgroundPrompt('searchqa', 1);
    expect(t.steps.map((s) => s.action)).toEqual([
      'search[The Rising Compass]',
      'search[Wystan Morrow]',
      'answer[Raven Gate]',
    ]);
    expect((await chat({ model: 'shop', messages })).body.error.message).toBe(
      refusal('shop', 3, '1 is not a shop command', 'answer[Raven Gate]', 'searchqa'),
    );
    expect((await chat({ model: 'searchqa', messages })).status).toBe(200);
    // A shop episode whose answer[…] the shop answered as inadmissible: only its valid actions place it, in shop.
    const step = (observation: string, action: string) => ({ observation, action, valid: true, return: 0 });
    const typo = {
      task: 'i need a yellow hoodie',
      success: false,
      finalObservation: '',
      steps: [
        step('WebShop [SEP] Instruction: [SEP] i need a yellow hoodie [SEP] Search', 'search[yellow hoodie]'),
        step('[Back to Search] Page 1 (Total results: 0)', 'answer[yellow hoodie]'),
        step('Nothing happens.', 'search[hoodie]'),
      ],
    };
    const r = await chat({ model: 'shop', messages: [{ role: 'user', content: opidPrompt(typo, 1) }] });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.choices[0].message.content).episode_summary).toBe(
      'The agent failed after 3 steps (1 invalid) on: i need a yellow hoodie',
    );
  });

  it('stream, a prompt in no known form, a bad {group} line, a {group} env not the model, bad bodies', async () => {
    const bad = (status: number, re: RegExp) => ({
      status,
      body: { error: expect.objectContaining({ message: expect.stringMatching(re) }) },
    });
    const user = (content: string) => [{ role: 'user', content }];
    expect(await chat({ model: 'household', messages: user(trajectoryPrompt()), stream: true })).toEqual(
      bad(400, /stream: true is not served/),
    );
    expect(await chat({ model: 'household', messages: user('hello') })).toEqual(
      bad(400, /hold no episode this server can read/),
    );
    expect(await chat({ model: 'household', messages: user('opd-group: {"v": 1,') })).toEqual(
      bad(400, /is not one JSON object/),
    );
    expect(await chat({ model: 'household', messages: user('opd-group: {"v": 1, "env": "household"}') })).toEqual(
      bad(400, /the "opd-group:" line's field "index"/),
    );
    const line = renderGroup({ group: noisyGroup(getEnvSpec('household'), 'easy', 1, 1), index: 0 }, 2);
    expect(await chat({ model: 'shop', messages: user(line) })).toEqual(
      bad(400, /names another env than the prompt's \{group\} line/),
    );
    const refused = (message: string, param: string | null) => ({
      status: 400,
      body: { error: { message, type: 'invalid_request_error', param, code: null } },
    });
    // A {group} line of an env this server does not serve: the line is at fault, not the model (no "send model").
    const value = JSON.parse(line.slice(GROUP_LINE_PREFIX.length));
    for (const [env, near] of [
      ['nosuch', ''],
      ['Household', '; did you mean household?'],
    ])
      expect(
        await chat({ model: 'household', messages: user(GROUP_LINE_PREFIX + JSON.stringify({ ...value, env })) }),
      ).toEqual(
        refused(
          `the prompt's {group} line names env "${env}", which this server has no analyzer for: its models are the ` +
            `envs with an embedded analyzer: household, shop, searchqa (GET /v1/models)${near}; render the line ` +
            'with {group} from a run of one of them',
          'messages',
        ),
      );
    const n = value.trajectories.length;
    expect(n).toBe(8);
    expect(
      await chat({ model: 'household', messages: user(GROUP_LINE_PREFIX + JSON.stringify({ ...value, index: n })) }),
    ).toEqual(
      refused(
        'the "opd-group:" line\'s field "index" is 8, but the line holds 8 trajectories: send the index of the ' +
          'prompt\'s trajectory in "trajectories" (0 to 7), as {group} renders it',
        null,
      ),
    );
    expect(await chat({ model: 'household', messages: user('opd-group: [1, 2]') })).toEqual(
      refused(
        'the "opd-group:" line must hold one JSON object (Invalid input: expected object, received array); render ' +
          'it with {group}',
        null,
      ),
    );
    expect(await chat({ model: 'household', messages: [] })).toEqual(
      bad(400, /field "messages" must be a non-empty array/),
    );
    // a field inside a message is named with what it takes (not the whole array's description)
    const ROLES = '"system", "developer", "user", "assistant", "tool", "function"';
    expect(await chat({ model: 'household', messages: [{ role: 1, content: 'x' }] })).toEqual(
      bad(
        400,
        new RegExp(`^POST /v1/chat/completions: field "messages\\[0\\]\\.role" must be one of ${ROLES}, got a number;`),
      ),
    );
    expect(await chat({ model: 'household', messages: [{ role: 'wizard', content: 'x' }] })).toEqual(
      bad(400, /field "messages\[0\]\.role" must be one of "system", .*, got a string;/),
    );
    expect(await chat({ model: 'household', messages: [{ role: 'user' }] })).toEqual(
      bad(400, /field "messages\[0\]\.content" is missing \(the message: a text/),
    );
    expect(await chat({ model: 'household', messages: ['hi'] })).toEqual(
      bad(400, /field "messages\[0\]" must be an object \{role, content\}, got a string;/),
    );
    expect(await chat('{"model": ')).toEqual(bad(400, /the body is not JSON/));
    expect(await chat({ model: 'household', messages: user(trajectoryPrompt()) })).toMatchObject({ status: 200 });
  });
});
