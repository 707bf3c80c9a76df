/**
 * The `http` analyzer against a real local chat-completions server (node:http, port 0), scripted per request,
 * through every bad reply issue #4 lists.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpAnalyzer, type HttpAnalyzerOptions } from '../../../src/core/analyzer/http';
import { DEFAULT_HTTP_PROMPT, STRICT_SUFFIX, renderPrompt } from '../../../src/core/analyzer/prompt';
import { discountedReturns, type AnalyzerGroup, type AnalyzerTrajectory } from '../../../src/core/analyzer/types';
import { episodeSkill, failureSkill, stepSkill } from '../../../src/core/skills/grammar';

/** What the scripted server answers: a chat completion with `content`, a raw `body`, a status, or nothing (`hang`). */
interface Reply { status?: number; content?: string; body?: string; hang?: boolean; stallBody?: boolean; delayMs?: number; headers?: Record<string, string> }
interface Seen { path: string; headers: IncomingHttpHeaders; body: { model: string; temperature: number; response_format: unknown; messages: { role: string; content: string }[] } }

const completion = (content: string) => JSON.stringify({
  id: 'c1', object: 'chat.completion', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
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
  task: 'put an apple in fridge.', success, finalObservation: success ? 'You move the apple 1 to the fridge 1.' : 'Nothing happens.',
  steps: acts.map((action, i) => ({ observation: i ? `You arrive at ${acts[i - 1]}.` : 'You are in the middle of a room.', action, valid: i !== 2 || success, return: success ? G[i] : 0 })),
});
const group = (...s: boolean[]): AnalyzerGroup => ({ env: 'household', trajectories: s.map(traj) });
const GOOD = { episodeSkill: episodeSkill(acts), stepSkills: { 1: stepSkill(acts[1]), 3: stepSkill(acts[3]) } };
const make = (url: string, o: Partial<HttpAnalyzerOptions> = {}) => new HttpAnalyzer({ baseUrl: url, model: 'tiny', maxStepSkills: 5, retryDelayMs: 0, ...o });
const stats = (calls: number, failures: number, failureReasons: Record<string, number> = {}) => ({ calls, failures, failureReasons });
const counts = (a: HttpAnalyzer) => { const { calls, failures, failureReasons } = a.stats(); return { calls, failures, failureReasons }; };

describe('http analyzer: good and repairable replies (issue #4)', () => {
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
    expect(req.body.messages[1].content).toContain('step 1: obs="You arrive at go to countertop 2." action="take apple 1 from countertop 2" return=0.90\n');
    expect(req.body.messages[1].content).not.toContain(STRICT_SUFFIX);
    expect(counts(a)).toEqual(stats(1, 0));
    expect(a.stats().latencyMs).toBeGreaterThan(0);
  });

  it.each([
    ['fenced JSON', '```json\n' + JSON.stringify(GOOD, null, 2) + '\n```'],
    ['trailing commas', '{"episodeSkill": "' + GOOD.episodeSkill + '", "stepSkills": {"1": "' + GOOD.stepSkills[1] + '", "3": "' + GOOD.stepSkills[3] + '",},}'],
    ['stray text around JSON', 'Here is my analysis:\n' + JSON.stringify(GOOD) + '\nI hope it helps.'],
    ['snake_case keys', JSON.stringify({ episode_skill: GOOD.episodeSkill, step_skills: GOOD.stepSkills })],
  ])('%s is repaired on the first request', async (_, content) => {
    const s = await serve(() => ({ content }));
    const a = make(s.url);
    expect(await a.analyze(group(true))).toEqual([GOOD]);
    expect(counts(a)).toEqual(stats(1, 0));
  });

  it('drops step keys out of range, negative or non-integer; keeps K; cuts long skills; keeps <script> as text', async () => {
    const content = JSON.stringify({
      episodeSkill: '<script>alert(1)</script> plan: go to fridge 1.',
      stepSkills: { '-1': 'neg', 4: 'out of range', '1.5': 'frac', x: 'word', 0: 'a', 1: 'b '.repeat(5000), 2: 'c', 3: 'd' },
    });
    const s = await serve(() => ({ content }));
    const a = make(s.url, { maxStepSkills: 2, maxSkillChars: 9 });
    expect(await a.analyze(group(true))).toEqual([{ episodeSkill: '<script>a', stepSkills: { 0: 'a', 1: 'b b b b b' } }]);
    const b = make(s.url, { maxStepSkills: 3 });
    expect(await b.analyze(group(true))).toEqual([{ episodeSkill: '<script>alert(1)</script> plan: go to fridge 1.', stepSkills: { 0: 'a', 1: ('b '.repeat(100)).trim(), 2: 'c' } }]);
  });

  it('a 10 000-character skill is cut to maxSkillChars at a word boundary', async () => {
    const s = await serve(() => ({ content: JSON.stringify({ episodeSkill: 'avoid: ' + 'z'.repeat(10_000), stepSkills: { 2: 'y'.repeat(10_000) } }) }));
    const [r] = await make(s.url, { maxSkillChars: 50 }).analyze(group(false));
    expect(r).toEqual({ episodeSkill: 'avoid:', stepSkills: { 2: 'y'.repeat(50) } });
  });
});

describe('http analyzer: bad replies are retried, then counted (issue #4)', () => {
  it('not JSON: 1 request + 2 retries, the retries with the stricter prompt; null and one failure', async () => {
    const s = await serve(() => ({ content: 'I think the agent did well.' }));
    const a = make(s.url);
    expect(await a.analyze(group(false))).toEqual([null]);
    expect(s.seen.length).toBe(3);
    const users = s.seen.map((r) => r.body.messages[1].content);
    expect(users.map((u) => u.endsWith(STRICT_SUFFIX))).toEqual([false, true, true]);
    expect(users[1]).toBe(users[0] + STRICT_SUFFIX);
    expect(counts(a)).toEqual(stats(3, 1, { 'reply was not JSON': 1 }));
  });

  it.each([
    ['empty content', { content: '' }, 'reply was empty'],
    ['empty body', { body: '' }, 'reply was empty'],
    ['wrong types', { content: '{"episodeSkill": 3, "stepSkills": {}}' }, 'episodeSkill missing or not a string'],
    ['step skills as a list', { content: '{"episodeSkill": "plan: a.", "stepSkills": ["next, a."]}' }, 'stepSkills was not an object keyed by step number'],
    ['no message content', { body: '{"choices": []}' }, 'reply had no message content'],
    ['not a chat completion', { body: '<html>hello</html>' }, 'reply was not a chat completion (check the base URL)'],
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
    const s = await serve((n) => (n === 0 ? { status: 429, body: '{"error": "slow down"}' } : { content: JSON.stringify(GOOD) }));
    const a = make(s.url);
    expect(await a.analyze(group(true))).toEqual([GOOD]);
    expect(s.seen[1].body.messages[1].content).toBe(s.seen[0].body.messages[1].content);
    expect(counts(a)).toEqual(stats(2, 0));
  });

  it('HTTP 401 is not retried', async () => {
    const s = await serve(() => ({ status: 401, body: '{"error": {"message": "Incorrect API key provided"}}' }));
    const a = make(s.url);
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
    const s = await serve((n) => (n === 0 ? { status: 503, body: '{}', headers: { 'retry-after': '0.2' } } : { content: JSON.stringify(GOOD) }));
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

describe('http analyzer: options (issue #4)', () => {
  it('rejects a baseUrl that is not http(s), naming the field and the fix', () => {
    const opts = { model: 'm', maxStepSkills: 5 };
    const msg = 'http analyzer: baseUrl must start with http:// or https://; fix: give the server root, e.g. http://localhost:11434';
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'ftp://example.com' })).toThrow(msg);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'localhost:11434' })).toThrow(msg);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'javascript:alert(1)' })).toThrow(msg);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'not a url' })).toThrow('http analyzer: baseUrl is not a valid URL; fix: give the server root, e.g. http://localhost:11434 (Ollama) or https://api.openai.com');
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'http://u:p@h' })).toThrow('http analyzer: baseUrl must not contain a user name or password; fix: put the key in the apiKey field');
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'http://h/?key=1' })).toThrow(/baseUrl must not contain a query/);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'http://h', model: ' ' })).toThrow(/model is empty/);
    expect(() => new HttpAnalyzer({ ...opts, baseUrl: 'http://h', concurrency: 0 })).toThrow('http analyzer: concurrency must be an integer ≥ 1, got 0; fix: use 4');
  });

  it('builds {baseUrl}/v1/chat/completions without doubling /v1', () => {
    const e = (baseUrl: string) => new HttpAnalyzer({ baseUrl, model: 'm', maxStepSkills: 5 }).endpoint;
    expect(e('http://localhost:11434')).toBe('http://localhost:11434/v1/chat/completions');
    expect(e('http://localhost:11434/')).toBe('http://localhost:11434/v1/chat/completions');
    expect(e('https://api.example.com/v1')).toBe('https://api.example.com/v1/chat/completions');
    expect(e('https://api.example.com/proxy/v1/chat/completions')).toBe('https://api.example.com/proxy/v1/chat/completions');
  });

  it('failedOnly: successful trajectories get null without a request', async () => {
    const s = await serve(() => ({ content: JSON.stringify(GOOD) }));
    const a = make(s.url, { failedOnly: true });
    expect(await a.analyze(group(true, false, true))).toEqual([null, GOOD, null]);
    expect(s.seen.length).toBe(1);
    expect(s.seen[0].body.messages[1].content).toContain('Outcome: failure');
    expect(counts(a)).toEqual(stats(1, 0));
  });

  it('bounds requests in flight by concurrency, across concurrent analyze calls', async () => {
    const s = await serve(() => ({ content: JSON.stringify(GOOD), delayMs: 40 }));
    const a = make(s.url, { concurrency: 3 });
    const out = await Promise.all([a.analyze(group(true, true, true, true, true)), a.analyze(group(true, true, true, true, true))]);
    expect(out.flat()).toEqual(new Array(10).fill(GOOD));
    expect(s.maxInFlight()).toBe(3);
    expect(counts(a)).toEqual(stats(10, 0));
  });

  it('the API key is sent in the Authorization header and appears in no reason, stat, message or dump', async () => {
    const key = 'sk-test-SECRET123';
    const s = await serve((n) => (n === 0 ? { status: 401, body: `{"error": "Incorrect API key provided: ${key}"}` } : { status: 500, body: `{"error": "${key}"}` }));
    const a = make(s.url, { apiKey: `  ${key}\n`, maxRetries: 1 });
    expect(await a.analyze(group(false, false))).toEqual([null, null]);
    expect(s.seen.map((r) => r.headers.authorization)).toEqual(new Array(3).fill(`Bearer ${key}`));
    expect(counts(a)).toEqual(stats(3, 2, { 'HTTP 401 (API key rejected)': 1, 'HTTP 500 (server error)': 1 }));
    for (const dump of [JSON.stringify(a.stats()), JSON.stringify(a), inspect(a, { depth: 9, showHidden: true }), String(a)]) expect(dump).not.toContain('SECRET123');
    let msg = '';
    try { make(s.url, { apiKey: 'sk-SECRET123 oops' }); } catch (e) { msg = (e as Error).message; }
    expect(msg).toBe('http analyzer: apiKey contains spaces, line breaks or non-ASCII characters; fix: paste the key again without extra characters');
  });
});

describe('http analyzer prompt (issue #4)', () => {
  it('teaches the grammar with examples built from the grammar module', () => {
    expect(DEFAULT_HTTP_PROMPT.system).toContain('"next, <action>."');
    expect(DEFAULT_HTTP_PROMPT.system).toContain(episodeSkill(['go to countertop 2', 'take apple 1 from countertop 2', 'go to fridge 1', 'move apple 1 to fridge 1']));
    expect(DEFAULT_HTTP_PROMPT.system).toContain(failureSkill('take mug 2 from countertop 1', 'the task names apple', 'take apple 1 from countertop 1'));
  });

  it('fills every placeholder in one pass, marking invalid steps', () => {
    const t = { ...traj(false), task: 'put {K} apples in {steps}.' };
    const p = renderPrompt({ system: 'K={K} last={lastStep} max={maxChars} {unknown}', user: '{task}|{outcome}|{final}\n{steps}' }, t, 2, 80);
    expect(p.system).toBe('K=2 last=3 max=80 {unknown}');
    expect(p.user).toBe([
      'put {K} apples in {steps}.|failure|"Nothing happens."',
      'step 0: obs="You are in the middle of a room." action="go to countertop 2" return=0.00',
      'step 1: obs="You arrive at go to countertop 2." action="take apple 1 from countertop 2" return=0.00',
      'step 2: obs="You arrive at take apple 1 from countertop 2." action="go to fridge 1" return=0.00 invalid',
      'step 3: obs="You arrive at go to fridge 1." action="move apple 1 to fridge 1" return=0.00',
    ].join('\n'));
  });
});
