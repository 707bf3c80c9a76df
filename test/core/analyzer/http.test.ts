/**
 * The `http` analyzer against a real local chat-completions server (node:http, port 0), scripted per request,
 * through every kind of bad reply.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpAnalyzer, type HttpAnalyzerOptions } from '../../../src/core/analyzer/http';
import { DEFAULT_HTTP_PROMPT, STRICT_SUFFIX, promptEnv, renderPrompt } from '../../../src/core/analyzer/prompt';
import { household } from '../../../src/core/envs/household';
import type { AnalyzerGroup, AnalyzerTrajectory } from '../../../src/core/analyzer/types';
import { discountedReturns } from '../../../src/core/math/returns';
import { episodeSkill, failureSkill, stepSkill } from '../../../src/core/skills/grammar';

/** What the scripted server answers: a chat completion with `content`, a raw `body`, a status, or nothing (`hang`). */
interface Reply {
  status?: number;
  content?: string;
  body?: string;
  hang?: boolean;
  stallBody?: boolean;
  delayMs?: number;
  headers?: Record<string, string>;
}
interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: { model: string; temperature: number; response_format: unknown; messages: { role: string; content: string }[] };
}

const completion = (content: string) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(null));
  server = undefined;
});

/** Start the server; `script(n)` answers the n-th request (0-based). Counts max requests in flight. */
async function serve(script: (n: number, seen: Seen) => Reply) {
  const seen: Seen[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const s: Seen = { path: req.url ?? '', headers: req.headers, body: JSON.parse(raw) };
      const reply = script(seen.length, s);
      seen.push(s);
      if (reply.hang) return;
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      inFlight--;
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      if (reply.stallBody) return void res.write('{"choices": [');
      res.end(reply.body ?? completion(reply.content ?? ''));
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, maxInFlight: () => maxInFlight };
}

const acts = ['go to countertop 2', 'take apple 1 from countertop 2', 'go to fridge 1', 'move apple 1 to fridge 1'];
const G = discountedReturns([0, 0, 0, 1]);
const traj = (success: boolean): AnalyzerTrajectory => ({
  task: 'put an apple in fridge.',
  success,
  finalObservation: success ? 'You move the apple 1 to the fridge 1.' : 'Nothing happens.',
  steps: acts.map((action, i) => ({
    observation: i ? `You arrive at ${acts[i - 1]}.` : 'You are in the middle of a room.',
    action,
    valid: i !== 2 || success,
    return: success ? G[i] : 0,
  })),
});
const group = (...s: boolean[]): AnalyzerGroup => ({ env: 'household', trajectories: s.map(traj) });
const GOOD = { episodeSkill: episodeSkill(acts), stepSkills: { 1: stepSkill(acts[1]), 3: stepSkill(acts[3]) } };
const make = (url: string, o: Partial<HttpAnalyzerOptions> = {}) =>
  new HttpAnalyzer({ baseUrl: url, model: 'tiny', maxStepSkills: 5, retryDelayMs: 0, ...o });
const stats = (calls: number, failures: number, failureReasons: Record<string, number> = {}) => ({
  calls,
  failures,
  failureReasons,
});
const counts = (a: HttpAnalyzer) => {
  const { calls, failures, failureReasons } = a.stats();
  return { calls, failures, failureReasons };
};

describe('http analyzer: good and repairable replies', () => {
  it('a good reply gives the exact skills; the request is a JSON-mode chat completion at temperature 0', async () => {
    const s = await serve(() => ({ content: JSON.stringify(GOOD) }));
    const a = make(s.url);
    expect(await a.analyze(group(true))).toEqual([GOOD]);
    expect(s.seen.length).toBe(1);
    const req = s.seen[0];
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body.model).toBe('tiny');
    expect(req.body.temperature).toBe(0);
    expect(req.body.response_format).toEqual({ type: 'json_object' });
    expect(req.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(req.body.messages[1].content).toContain(
      'step 1: obs="You arrive at go to countertop 2." action="take apple 1 from countertop 2" return=0.90\n',
    );
    expect(req.body.messages[1].content).not.toContain(STRICT_SUFFIX);
    expect(counts(a)).toEqual(stats(1, 0));
    expect(a.stats().latencyMs).toBeGreaterThan(0);
  });

  it.each([
    ['fenced JSON', '```json\n' + JSON.stringify(GOOD, null, 2) + '\n```'],
    [
      'trailing commas',
      '{"episodeSkill": "' +
        GOOD.episodeSkill +
        '", "stepSkills": {"1": "' +
        GOOD.stepSkills[1] +
        '", "3": "' +
        GOOD.stepSkills[3] +
        '",},}',
    ],
    ['stray text around JSON', 'Here is my analysis:\n' + JSON.stringify(GOOD) + '\nI hope it helps.'],
    ['snake_case keys', JSON.stringify({ episode_skill: GOOD.episodeSkill, step_skills: GOOD.stepSkills })],
  ])('%s is repaired on the first request', async (_, content) => {
    const s = await serve(() => ({ content }));
    const a = make(s.url);
    expect(await a.analyze(group(true))).toEqual([GOOD]);
    expect(counts(a)).toEqual(stats(1, 0));
  });

  it(
    'drops step keys out of range, negative or non-integer; keeps K; cuts long skills; keeps <script> as ' + 'text',
    async () => {
      const content = JSON.stringify({
        episodeSkill: '<script>alert(1)</script> plan: go to fridge 1.',
        stepSkills: {
          '-1': 'neg',
          4: 'out of range',
          '1.5': 'frac',
          x: 'word',
          0: 'a',
          1: 'b '.repeat(5000),
          2: 'c',
          3: 'd',
        },
      });
      const s = await serve(() => ({ content }));
      const a = make(s.url, { maxStepSkills: 2, maxSkillChars: 9 });
      expect(await a.analyze(group(true))).toEqual([
        { episodeSkill: '<script>a', stepSkills: { 0: 'a', 1: 'b b b b b' } },
      ]);
      const b = make(s.url, { maxStepSkills: 3 });
      expect(await b.analyze(group(true))).toEqual([
        {
          episodeSkill: '<script>alert(1)</script> plan: go to fridge 1.',
          stepSkills: { 0: 'a', 1: 'b '.repeat(100).trim(), 2: 'c' },
        },
      ]);
    },
  );

  it('a 10 000-character skill is cut to maxSkillChars at a word boundary', async () => {
    const s = await serve(() => ({
      content: JSON.stringify({ episodeSkill: 'avoid: ' + 'z'.repeat(10_000), stepSkills: { 2: 'y'.repeat(10_000) } }),
    }));
    const [r] = await make(s.url, { maxSkillChars: 50 }).analyze(group(false));
    expect(r).toEqual({ episodeSkill: 'avoid:', stepSkills: { 2: 'y'.repeat(50) } });
  });
});

describe('http analyzer: bad replies are retried, then counted', () => {
  it('not JSON: 1 request + 2 retries, the retries with the stricter prompt; null and one failure', async () => {
    const s = await serve(() => ({ content: 'I think the agent did well.' }));
    const a = make(s.url);
    expect(await a.analyze(group(false))).toEqual([null]);
    expect(s.seen.length).toBe(3);
    const users = s.seen.map((r) => r.body.messages[1].content);
    expect(users.map((u) => u.endsWith(STRICT_SUFFIX))).toEqual([false, true, true]);
    expect(users[1]).toBe(users[0] + STRICT_SUFFIX);
    expect(counts(a)).toEqual(stats(3, 1, { 'reply was not JSON, e.g. "I think the agent did well."': 1 }));
  });

  it('not JSON: the counted reason quotes the first such reply (shortened); one reason counts them all', async () => {
    const s = await serve((n) => ({ content: n < 3 ? `Well,\n  the agent ${'x'.repeat(80)}` : 'Another answer.' }));
    const a = make(s.url);
    expect(await a.analyze(group(false))).toEqual([null]);
    expect(await a.analyze(group(false))).toEqual([null]);
    expect(counts(a)).toEqual(stats(6, 2, { [`reply was not JSON, e.g. "Well, the agent ${'x'.repeat(41)}…"`]: 2 }));
  });

  it.each([
    ['empty content', { content: '' }, 'reply was empty'],
    ['empty body', { body: '' }, 'reply was empty'],
    ['wrong types', { content: '{"episodeSkill": 3, "stepSkills": {}}' }, 'episodeSkill missing or not a string'],
    [
      'step skills as a list',
      { content: '{"episodeSkill": "plan: a.", "stepSkills": ["next, a."]}' },
      'stepSkills was not an object keyed by step number',
    ],
    ['no choices', { body: '{"choices": []}' }, 'reply had no choices (the server returned an empty completion)'],
    [
      'no message content',
      { body: '{"choices": [{"message": {"role": "assistant", "content": null}, "finish_reason": "stop"}]}' },
      'reply had no message content',
    ],
    ['not a chat completion', { body: 'hello' }, 'reply was not a chat completion (check the base URL)'],
    [
      'an HTML page with 200',
      { body: '<!DOCTYPE html><html><body>Welcome to nginx!</body></html>', headers: { 'content-type': 'text/html' } },
      'reply was an HTML page, not a chat completion (check the base URL: give the API root, e.g. ' +
        'http://localhost:11434)',
    ],
    [
      'JSON without choices',
      { body: '{"models": [{"name": "tiny"}]}' },
      'reply was JSON without "choices", not a chat completion (check the base URL)',
    ],
    ['HTTP 500', { status: 500, body: '{"error": "boom"}' }, 'HTTP 500 (server error)'],
    ['HTTP 429 every time', { status: 429, body: '{}' }, 'HTTP 429 (rate limited)'],
  ])('%s: 3 requests, then null with the reason in words', async (_, reply, reason) => {
    const s = await serve(() => reply);
    const a = make(s.url);
    expect(await a.analyze(group(false, false))).toEqual([null, null]);
    expect(s.seen.length).toBe(6);
    expect(counts(a)).toEqual(stats(6, 2, { [reason]: 2 }));
  });

  it('a wrong-type reply then a good one: retried and used', async () => {
    const s = await serve((n) => ({ content: n === 0 ? '{"episodeSkill": ["x"]}' : JSON.stringify(GOOD) }));
    const a = make(s.url);
    expect(await a.analyze(group(true))).toEqual([GOOD]);
    expect(s.seen[1].body.messages[1].content.endsWith(STRICT_SUFFIX)).toBe(true);
    expect(counts(a)).toEqual(stats(2, 0));
  });

  it('HTTP 429 then success: retried with the same prompt', async () => {
    const s = await serve((n) =>
      n === 0 ? { status: 429, body: '{"error": "slow down"}' } : { content: JSON.stringify(GOOD) },
    );
    const a = make(s.url);
    expect(await a.analyze(group(true))).toEqual([GOOD]);
    expect(s.seen[1].body.messages[1].content).toBe(s.seen[0].body.messages[1].content);
    expect(counts(a)).toEqual(stats(2, 0));
  });

  it('HTTP 401 is not retried', async () => {
    const s = await serve(() => ({ status: 401, body: '{"error": {"message": "Incorrect API key provided"}}' }));
    const a = make(s.url, { apiKey: 'sk-wrong' });
    expect(await a.analyze(group(false))).toEqual([null]);
    expect(s.seen.length).toBe(1);
    expect(counts(a)).toEqual(stats(1, 1, { 'HTTP 401 (API key rejected)': 1 }));
  });

  it('a server that never answers times out after timeoutMs, each of the 3 tries', async () => {
    const s = await serve(() => ({ hang: true }));
    const a = make(s.url, { timeoutMs: 100 });
    const t0 = performance.now();
    expect(await a.analyze(group(false))).toEqual([null]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(s.seen.length).toBe(3);
    expect(counts(a)).toEqual(stats(3, 1, { 'timed out after 100 ms': 1 }));
  });

  it('a server that stalls mid-body also times out', async () => {
    const s = await serve(() => ({ stallBody: true }));
    const a = make(s.url, { timeoutMs: 80, maxRetries: 0 });
    expect(await a.analyze(group(false))).toEqual([null]);
    expect(counts(a)).toEqual(stats(1, 1, { 'timed out after 80 ms': 1 }));
  });

  it('HTTP 503 with Retry-After waits that long before the retry', async () => {
    const s = await serve((n) =>
      n === 0 ? { status: 503, body: '{}', headers: { 'retry-after': '0.2' } } : { content: JSON.stringify(GOOD) },
    );
    const a = make(s.url);
    const t0 = performance.now();
    expect(await a.analyze(group(true))).toEqual([GOOD]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(195);
    expect(counts(a)).toEqual(stats(2, 0));
  });

  it('connection refused at a closed port: one request, the reason names the address', async () => {
    const s = await serve(() => ({}));
    await new Promise((r) => server!.close(r));
    server = undefined;
    const a = make(s.url);
    expect(await a.analyze(group(false))).toEqual([null]);
    expect(counts(a)).toEqual(stats(1, 1, { [`connection refused at ${s.url} (is the server running?)`]: 1 }));
  });

  it('an aborted run rejects with the abort reason and counts no failure', async () => {
    const s = await serve(() => ({ hang: true }));
    const a = make(s.url);
    const ctl = new AbortController();
    const p = a.analyze(group(false), ctl.signal);
    while (s.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    ctl.abort(new Error('run stopped'));
    await expect(p).rejects.toThrow('run stopped');
    expect(counts(a)).toEqual(stats(1, 0));
  });
});

describe('http analyzer: options', () => {
  it('rejects a baseUrl that is not http(s), naming the field and the fix', () => {
    const opts = { model: 'm', maxStepSkills: 5 };
    const msg =
      'http analyzer: baseUrl must start with http:// or https://; fix: give the server root, e.g. ' +
      'http://localhost:11434';
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'ftp://example.com' })).toThrow(msg);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'localhost:11434' })).toThrow(msg);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'javascript:alert(1)' })).toThrow(msg);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'not a url' })).toThrow(
      'http analyzer: baseUrl is not a valid URL; fix: give the server root, e.g. http://localhost:11434 ' +
        '(Ollama) or https://api.openai.com',
    );
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'http://u:p@h' })).toThrow(
      'http analyzer: baseUrl must not contain a user name or password; fix: put the key in the apiKey field',
    );
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'http://h/?key=1' })).toThrow(/baseUrl must not contain a query/);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'http://h', model: ' ' })).toThrow(/model is empty/);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'http://h', concurrency: 0 })).toThrow(
      'http analyzer: concurrency must be an integer ≥ 1, got 0; fix: use 4',
    );
  });

  it('builds {baseUrl}/v1/chat/completions without doubling /v1', () => {
    const e = (baseUrl: string) => new HttpAnalyzer({ baseUrl, model: 'm', maxStepSkills: 5 }).endpoint;
    expect(e('http://localhost:11434')).toBe('http://localhost:11434/v1/chat/completions');
    expect(e('http://localhost:11434/')).toBe('http://localhost:11434/v1/chat/completions');
    expect(e('https://api.example.com/v1')).toBe('https://api.example.com/v1/chat/completions');
    expect(e('https://api.example.com/proxy/v1/chat/completions')).toBe(
      'https://api.example.com/proxy/v1/chat/completions',
    );
  });

  it('failedOnly: successful trajectories get null without a request', async () => {
    const s = await serve(() => ({ content: JSON.stringify(GOOD) }));
    const a = make(s.url, { failedOnly: true });
    expect(await a.analyze(group(true, false, true))).toEqual([null, GOOD, null]);
    expect(s.seen.length).toBe(1);
    expect(s.seen[0].body.messages[1].content).toContain('Outcome: failure');
    expect(counts(a)).toEqual(stats(1, 0));
  });

  it("never sends a trajectory's privileged task reference (ref: only the oracle reads it)", async () => {
    const s = await serve(() => ({ content: JSON.stringify(GOOD) }));
    const withRef = { ...traj(false), ref: { split: 'test-unseen' as const, index: 987654 } };
    expect(await make(s.url).analyze({ env: 'household', trajectories: [withRef] })).toEqual([GOOD]);
    const sent = JSON.stringify(s.seen[0].body);
    for (const x of ['987654', 'test-unseen', '"ref"']) expect(sent).not.toContain(x);
  });

  it('bounds requests in flight by concurrency, across concurrent analyze calls', async () => {
    const s = await serve(() => ({ content: JSON.stringify(GOOD), delayMs: 40 }));
    const a = make(s.url, { concurrency: 3 });
    const out = await Promise.all([
      a.analyze(group(true, true, true, true, true)),
      a.analyze(group(true, true, true, true, true)),
    ]);
    expect(out.flat()).toEqual(new Array(10).fill(GOOD));
    expect(s.maxInFlight()).toBe(3);
    expect(counts(a)).toEqual(stats(10, 0));
  });

  it('the API key is sent in the Authorization header and appears in no reason, stat, message or dump', async () => {
    const key = 'sk-test-SECRET123';
    const s = await serve((n) =>
      n === 0
        ? { status: 401, body: `{"error": "Incorrect API key provided: ${key}"}` }
        : { status: 500, body: `{"error": "${key}"}` },
    );
    const a = make(s.url, { apiKey: `  ${key}\n`, maxRetries: 1 });
    expect(await a.analyze(group(false, false))).toEqual([null, null]);
    expect(s.seen.map((r) => r.headers.authorization)).toEqual(new Array(3).fill(`Bearer ${key}`));
    expect(counts(a)).toEqual(stats(3, 2, { 'HTTP 401 (API key rejected)': 1, 'HTTP 500 (server error)': 1 }));
    for (const dump of [
      JSON.stringify(a.stats()),
      JSON.stringify(a),
      inspect(a, { depth: 9, showHidden: true }),
      String(a),
    ])
      expect(dump).not.toContain('SECRET123');
    let msg = '';
    try {
      make(s.url, { apiKey: 'sk-SECRET123 oops' });
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toBe(
      'http analyzer: apiKey contains spaces, line breaks or non-ASCII characters; fix: paste the key ' +
        'again without extra characters',
    );
  });
});

describe('http analyzer prompt', () => {
  it('teaches the grammar; the env gives its commands and worked examples, built from the grammar module', () => {
    expect(DEFAULT_HTTP_PROMPT.system).toContain('"next, <action>."');
    expect(DEFAULT_HTTP_PROMPT.system).not.toMatch(/countertop|apple/);
    const p = renderPrompt(DEFAULT_HTTP_PROMPT, traj(false), 5, 200, promptEnv(household, 'default'));
    expect(p.system).toContain(
      episodeSkill([
        'go to countertop 2',
        'take apple 1 from countertop 2',
        'go to fridge 1',
        'move apple 1 to fridge 1',
      ]),
    );
    expect(p.system).toContain(
      failureSkill('take mug 2 from countertop 1', 'the task names apple', 'take apple 1 from countertop 1'),
    );
    expect(p.system).toContain("The environment's commands: go to …, open …, close …, take … from …");
    expect(p.system).not.toMatch(/\{(commands|examples)\}/);
  });

  it('names no command and shows no example for an env that gives none', () => {
    const p = renderPrompt(DEFAULT_HTTP_PROMPT, traj(false), 5, 200, {});
    expect(p.system).toContain("The environment's commands: those the episode shows (no list given).");
    expect(p.system).toContain('(no worked example for this environment)');
  });

  it("quotes observations as the env's observationText gives them, then cut", () => {
    const env = { observationText: (o: string) => o.toUpperCase() };
    const p = renderPrompt({ system: '', user: '{steps}|{final}' }, traj(false), 2, 80, env);
    expect(p.user).toContain('step 0: obs="YOU ARE IN THE MIDDLE OF A ROOM."');
    expect(p.user).toMatch(/\|"NOTHING HAPPENS\."$/);
  });

  it('fills every placeholder in one pass, marking invalid steps', () => {
    const t = { ...traj(false), task: 'put {K} apples in {steps}.' };
    const p = renderPrompt(
      { system: 'K={K} last={lastStep} max={maxChars} {unknown}', user: '{task}|{outcome}|{final}\n{steps}' },
      t,
      2,
      80,
    );
    expect(p.system).toBe('K=2 last=3 max=80 {unknown}');
    expect(p.user).toBe(
      [
        'put {K} apples in {steps}.|failure|"Nothing happens."',
        'step 0: obs="You are in the middle of a room." action="go to countertop 2" return=0.00',
        'step 1: obs="You arrive at go to countertop 2." action="take apple 1 from countertop 2" return=0.00',
        'step 2: obs="You arrive at take apple 1 from countertop 2." action="go to fridge 1" return=0.00 invalid',
        'step 3: obs="You arrive at go to fridge 1." action="move apple 1 to fridge 1" return=0.00',
      ].join('\n'),
    );
  });
});

/** A chat completion whose first choice has `message` (merged over role assistant) and `finish_reason`. */
const chat = (message: Record<string, unknown>, finish: string | null = 'stop') =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
  });
const JSON_GOOD = JSON.stringify(GOOD);
/** Skills, calls and failure reasons of one single-trajectory analysis against a server answering `script`. */
async function once(script: (n: number, seen: Seen) => Reply, o: Partial<HttpAnalyzerOptions> = {}) {
  const s = await serve(script);
  const a = make(s.url, o);
  const out = await a.analyze(group(true));
  return { out, seen: s.seen, ...counts(a) };
}
const THINK_CUT = 'the reply was cut inside a <think> block; raise max_tokens or use a non-reasoning model';
const ONLY_REASONING = (field: string) =>
  `the model answered only in ${field}, its message content was empty; use a non-reasoning model, turn ` +
  `thinking off (Qwen3: /no_think; vLLM, llama.cpp: enable_thinking=false; Ollama: think=false) or raise ` +
  `max_tokens`;
const CUT =
  'reply cut at max_tokens (finish_reason "length"); raise max_tokens on the server (Ollama num_predict, llama.cpp -n)';

describe('http analyzer: reasoning models (DeepSeek-R1, QwQ, Qwen3 via Ollama, vLLM, llama.cpp)', () => {
  it.each([
    [
      'a <think> block with braces before the answer',
      `<think>\nThe agent should {maybe} write {"episodeSkill": "wrong"} … let me check step ` +
        `{1}.\n</think>\n\n${JSON_GOOD}`,
    ],
    [
      'a lone </think> (R1 template opens the block in the prompt)',
      `Okay, so {x} the agent went to the fridge.\n</think>\n${JSON_GOOD}`,
    ],
    ['<thinking> tags, upper case', `<THINKING>{ not json }</THINKING>${JSON_GOOD}`],
    ['a think block, then a fenced answer', `<think>{}</think>\n\`\`\`json\n${JSON_GOOD}\n\`\`\``],
    [
      'gpt-oss harmony channels passed through',
      `<|channel|>analysis<|message|>We need {json}.<|end|>` +
        `<|start|>assistant<|channel|>final<|message|>${JSON_GOOD}<|return|>`,
    ],
    [
      'think block and answer in content parts, thinking parts skipped',
      [
        { type: 'thinking', thinking: 'hmm {' },
        { type: 'text', text: `<think>{</think>${JSON_GOOD}` },
      ],
    ],
  ])('%s: the skills, one request', async (_, content) => {
    const r = await once(() => ({ body: chat({ content }) }));
    expect(r.out).toEqual([GOOD]);
    expect(stats(r.calls, r.failures, r.failureReasons)).toEqual(stats(1, 0));
  });

  it.each([
    ['cut at max_tokens', chat({ content: '<think>\nThe agent took the apple {1}, so' }, 'length'), THINK_CUT],
    [
      'unclosed, though the server said stop',
      chat({ content: '  <think>Let me think about {"episodeSkill"' }),
      THINK_CUT,
    ],
    [
      'only a think block, no answer after it',
      chat({ content: '<think>The agent did {well}.</think>\n' }),
      'the reply held only a <think> block and no answer after it; turn thinking off or use a non-reasoning model',
    ],
    [
      'gpt-oss cut in its analysis channel',
      chat({ content: '<|channel|>analysis<|message|>We need to {' }, 'length'),
      "the reply held only gpt-oss's analysis channel and no final answer; raise max_tokens",
    ],
    [
      'content null, the answer in reasoning_content (vLLM, llama.cpp, DeepSeek)',
      chat({ content: null, reasoning_content: `I will answer ${JSON_GOOD}` }),
      ONLY_REASONING('reasoning_content'),
    ],
    [
      'content empty, the text in reasoning (Ollama, OpenRouter)',
      chat({ content: '', reasoning: 'The agent went to the fridge.' }),
      ONLY_REASONING('reasoning'),
    ],
    [
      'only thinking parts in the content (Magistral)',
      chat({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hmm' }] }] }),
      ONLY_REASONING('thinking parts of the content'),
    ],
    [
      'cut at max_tokens while still reasoning',
      chat({ content: null, reasoning_content: 'First, step 0 …' }, 'length'),
      'reply cut at max_tokens while the model was still reasoning (reasoning_content), before any ' +
        'answer; raise max_tokens or use a non-reasoning model',
    ],
  ])('%s: null after one request (no retry: it would repeat), the cause and the fix named', async (_, body, reason) => {
    const r = await once(() => ({ body }));
    expect(r.out).toEqual([null]);
    expect(stats(r.calls, r.failures, r.failureReasons)).toEqual(stats(1, 1, { [reason]: 1 }));
  });
});

describe('http analyzer: other server behaviours', () => {
  it.each([
    [
      'finish_reason "length" with cut JSON',
      chat({ content: '{"episodeSkill": "plan: go to countertop 2, take' }, 'length'),
      CUT,
    ],
    ['finish_reason "length" even when the cut JSON would parse', chat({ content: JSON_GOOD }, 'length'), CUT],
    [
      'finish_reason "content_filter"',
      chat({ content: '' }, 'content_filter'),
      'reply blocked by the server\'s content filter (finish_reason "content_filter")',
    ],
    [
      'a refusal (OpenAI structured outputs)',
      chat({ content: null, refusal: 'I cannot help with that.' }),
      'the model refused to answer (message.refusal); check the prompt template',
    ],
    [
      'HTTP 404, Ollama model not pulled',
      {
        status: 404,
        body: '{"error":{"message":"model \\"tiny\\" not found, try pulling it first","type":"api_error"}}',
      },
      'HTTP 404 (model "tiny" not found: check the name against the server\'s /v1/models list; with ' +
        'Ollama run "ollama pull tiny")',
    ],
    [
      'HTTP 404, vLLM model does not exist',
      {
        status: 404,
        body: '{"object":"error","message":"The model `tiny` does not exist.","type":"NotFoundError","code":404}',
      },
      'HTTP 404 (model "tiny" not found: check the name against the server\'s /v1/models list; with ' +
        'Ollama run "ollama pull tiny")',
    ],
    [
      'HTTP 400, OpenRouter invalid model id',
      { status: 400, body: '{"error":{"message":"tiny is not a valid model ID","code":400}}' },
      'HTTP 400 (model "tiny" not found: check the name against the server\'s /v1/models list; with ' +
        'Ollama run "ollama pull tiny")',
    ],
    [
      'HTTP 404 without a word about the model (wrong path)',
      { status: 404, body: '404 page not found' },
      'HTTP 404 (not found: check the base URL and model name)',
    ],
    [
      'HTTP 400, prompt over the context window (vLLM)',
      {
        status: 400,
        body: '{"message":"This model\'s maximum context length is 2048 tokens. However, you requested 3000 tokens."}',
      },
      "HTTP 400 (prompt longer than the model's context window: raise the server's context size " +
        '(llama.cpp -c, Ollama num_ctx) or use a model with a longer context)',
    ],
    [
      'HTTP 401 without a key',
      { status: 401, body: '{"error": "unauthorized"}' },
      'HTTP 401 (API key missing: this server needs one; give it in the key field or OPD_ANALYZER_API_KEY)',
    ],
    [
      'HTTP 403',
      { status: 403, body: '<html>Forbidden</html>', headers: { 'content-type': 'text/html' } },
      'HTTP 403 (access denied: the key lacks access to this model, or a proxy blocks the request)',
    ],
    [
      'HTTP 429, quota exhausted (OpenAI)',
      {
        status: 429,
        body:
          '{"error":{"message":"You exceeded your current ' +
          'quota","type":"insufficient_quota","code":"insufficient_quota"}}',
      },
      'HTTP 429 (quota exhausted: the account has no credit left; check its billing)',
    ],
    [
      'HTTP 429 asking to wait longer than the timeout',
      { status: 429, body: '{}', headers: { 'retry-after': '3600' } },
      'HTTP 429 (rate limited; the server asks to wait 3600 s, longer than the 20000 ms timeout; retry later)',
    ],
    [
      'a model-not-found error object in a 200 reply',
      { body: '{"error":{"message":"No endpoints found for tiny.","code":404}}' },
      'error inside a 200 reply (code 404: model "tiny" not found: check the name against the server\'s ' +
        '/v1/models list; with Ollama run "ollama pull tiny")',
    ],
  ])('%s: null after one request, the cause and the fix named', async (_, reply, reason) => {
    const r = await once(() => (typeof reply === 'string' ? { body: reply } : reply));
    expect(r.out).toEqual([null]);
    expect(stats(r.calls, r.failures, r.failureReasons)).toEqual(stats(1, 1, { [reason]: 1 }));
  });

  it.each([
    [
      'HTML 502 page from a proxy',
      {
        status: 502,
        body: '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>',
        headers: { 'content-type': 'text/html' },
      },
      'HTTP 502 (bad gateway: a proxy got no answer from the model server; is it running?)',
    ],
    [
      'HTTP 503 while the model loads',
      { status: 503, body: '{"error": "Loading model"}' },
      'HTTP 503 (server unavailable: overloaded or still loading the model)',
    ],
    [
      'an error object in a 200 reply (OpenRouter)',
      { body: '{"error":{"message":"Rate limit exceeded: free-models-per-min","code":429}}' },
      'error inside a 200 reply (code 429: rate limited)',
    ],
    [
      'an error object without a code in a 200 reply',
      { body: '{"error":{"message":"Provider returned error"}}' },
      'error inside a 200 reply (server error)',
    ],
    [
      'a choice that ended in an error (OpenRouter)',
      { body: chat({ content: '' }, 'error') },
      'error inside a 200 reply (server error)',
    ],
    [
      'an event stream that holds no completion',
      { body: 'data: <<garbled>>\n\n', headers: { 'content-type': 'text/event-stream' } },
      'reply was an event stream (data: lines) that held no chat completion (check the base URL)',
    ],
  ])('%s: retried with the same prompt, then null with the cause named', async (_, reply, reason) => {
    const r = await once(() => reply);
    expect(r.out).toEqual([null]);
    expect(r.seen.map((x) => x.body.messages[1].content.endsWith(STRICT_SUFFIX))).toEqual([false, false, false]);
    expect(stats(r.calls, r.failures, r.failureReasons)).toEqual(stats(3, 1, { [reason]: 1 }));
  });

  it('an error object in a 200 reply never echoes the server message (which may quote the key)', async () => {
    const key = 'sk-or-SECRET999';
    const r = await once(() => ({ body: JSON.stringify({ error: { message: `Invalid key ${key}`, code: 401 } }) }), {
      apiKey: key,
    });
    expect(r.failureReasons).toEqual({ 'error inside a 200 reply (code 401: API key rejected)': 1 });
    expect(r.calls).toBe(1);
  });

  it('an event stream sent although stream: false was asked is folded into one reply', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const half = Math.floor(JSON_GOOD.length / 2);
    const body =
      chunk({ role: 'assistant', content: '' }) +
      chunk({ reasoning_content: 'thinking {' }) +
      chunk({ content: JSON_GOOD.slice(0, half) }) +
      chunk({ content: JSON_GOOD.slice(half) }) +
      chunk({}, 'stop') +
      'data: [DONE]\n\n';
    const r = await once(() => ({ body, headers: { 'content-type': 'text/event-stream' } }));
    expect(r.out).toEqual([GOOD]);
    expect(r.calls).toBe(1);
    expect(r.seen[0].body).toMatchObject({ stream: false });
  });

  it('an event stream cut at max_tokens names the cut', async () => {
    const chunk = JSON.stringify({
      choices: [{ delta: { content: '{"episodeSkill": "plan' }, finish_reason: 'length' }],
    });
    const body = `data: ${chunk}\n\ndata: ` + `[DONE]\n\n`;
    const r = await once(() => ({ body, headers: { 'content-type': 'text/event-stream' } }));
    expect(r.failureReasons).toEqual({ [CUT]: 1 });
  });

  it.each([
    [
      'content as an array of text parts',
      chat({
        content: [
          { type: 'text', text: JSON_GOOD.slice(0, 20) },
          { type: 'text', text: JSON_GOOD.slice(20) },
        ],
      }),
    ],
    ['a byte-order mark before the body', '\uFEFF' + chat({ content: JSON_GOOD })],
    ['a byte-order mark inside the content', chat({ content: '\uFEFF' + JSON_GOOD })],
    [
      'a ```JSON fence with prose after it',
      chat({ content: 'Sure!\n```JSON\n' + JSON_GOOD + '\n```\nLet me know if you need more.' }),
    ],
    [
      'single quotes and a trailing comma',
      chat({
        content:
          `{'episodeSkill': '${GOOD.episodeSkill}', 'stepSkills': {1: '${GOOD.stepSkills[1]}', 3: ` +
          `'${GOOD.stepSkills[3]}',},}`,
      }),
    ],
    [
      'Python constants and a comment',
      chat({
        content:
          `{"episodeSkill": "${GOOD.episodeSkill}", // the workflow\n "stepSkills": {"1": "${GOOD.stepSkills[1]}", ` +
          `"3": "${GOOD.stepSkills[3]}"}, "extra": None, "ok": True}`,
      }),
    ],
    [
      'a brace sketch in prose before the object',
      chat({ content: `I will fill {episodeSkill, stepSkills} now:\n${JSON_GOOD}` }),
    ],
    ['legacy choices[].text', JSON.stringify({ choices: [{ index: 0, text: JSON_GOOD, finish_reason: 'stop' }] })],
  ])('%s: the skills on the first request', async (_, body) => {
    const r = await once(() => ({ body }));
    expect(r.out).toEqual([GOOD]);
    expect(r.calls).toBe(1);
  });

  it(
    'JSON mode rejected (HTTP 400 naming response_format): sent again at once without it, and never ' + 'again',
    async () => {
      const s = await serve((_, seen) =>
        seen.body.response_format
          ? { status: 400, body: "{\"error\":\"'response_format.type' must be 'json_schema' or 'text'\"}" }
          : { content: JSON_GOOD },
      );
      const a = make(s.url, { retryDelayMs: 10_000 }); // a backoff would time the test out: the resend is immediate
      expect(await a.analyze(group(true))).toEqual([GOOD]);
      expect(await a.analyze(group(true, true))).toEqual([GOOD, GOOD]);
      expect(s.seen.map((r) => r.body.response_format)).toEqual([
        { type: 'json_object' },
        undefined,
        undefined,
        undefined,
      ]);
      expect(s.seen[1].body.messages).toEqual(s.seen[0].body.messages);
      expect(counts(a)).toEqual(stats(4, 0));
    },
  );

  it(
    'a 400 that does not name JSON mode is not resent; ' + 'one that still fails without JSON mode is counted',
    async () => {
      let r = await once(() => ({ status: 400, body: '{"error": "bad request"}' }));
      expect(r.seen.map((x) => x.body.response_format)).toEqual([{ type: 'json_object' }]);
      expect(r.failureReasons).toEqual({
        'HTTP 400 (request rejected: the server may not support this model or JSON output)': 1,
      });
      server?.closeAllConnections();
      await new Promise((res) => server!.close(res));
      r = await once(() => ({ status: 400, body: '{"error": "response_format is not supported"}' }));
      expect(r.seen.map((x) => x.body.response_format)).toEqual([{ type: 'json_object' }, undefined]);
      expect(stats(r.calls, r.failures, r.failureReasons)).toEqual(
        stats(2, 1, { 'HTTP 400 (request rejected: the server may not support this model or JSON output)': 1 }),
      );
    },
  );

  it.each([
    ['Retry-After in seconds', { 'retry-after': '0.25' }],
    ['retry-after-ms (OpenAI)', { 'retry-after-ms': '250' }],
  ])('HTTP 429 with %s within the timeout is waited for, then the skills', async (_, headers) => {
    const s = await serve((n) => (n === 0 ? { status: 429, body: '{}', headers } : { content: JSON_GOOD }));
    const a = make(s.url, { timeoutMs: 1000 });
    const t0 = performance.now();
    expect(await a.analyze(group(true))).toEqual([GOOD]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(245);
    expect(counts(a)).toEqual(stats(2, 0));
  });

  it('a Retry-After longer than timeoutMs is not waited for', async () => {
    const s = await serve(() => ({ status: 503, body: '{}', headers: { 'retry-after': '2' } }));
    const a = make(s.url, { timeoutMs: 500 });
    const t0 = performance.now();
    expect(await a.analyze(group(true))).toEqual([null]);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(counts(a)).toEqual(
      stats(1, 1, {
        ['HTTP 503 (server unavailable: overloaded or still loading the model; ' +
        'the server asks to wait 2 s, longer than the 500 ms timeout; retry later)']: 1,
      }),
    );
  });
});

describe('http analyzer: a filtered reply with content', () => {
  it('finish_reason "content_filter" with JSON in the content is not used', async () => {
    const r = await once(() => ({ body: chat({ content: JSON_GOOD }, 'content_filter') }));
    expect(r.out).toEqual([null]);
    expect(r.failureReasons).toEqual({
      'reply blocked by the server\'s content filter (finish_reason "content_filter")': 1,
    });
  });
});
