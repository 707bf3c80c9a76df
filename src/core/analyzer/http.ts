/**
 * The `http` analyzer (issue #4; DESIGN.md §3 "Analyzer"): any OpenAI-compatible `POST {baseUrl}/v1/chat/completions`
 * endpoint (Ollama, llama.cpp server, vLLM, hosted APIs). One request per trajectory (JSON output requested,
 * temperature 0), at most `concurrency` requests in flight per analyzer, each bounded by `timeoutMs`. The reply is
 * repaired and validated (repair.ts). A bad reply is retried with a stricter prompt; 408/429/5xx, timeouts and
 * dropped connections are retried with the same prompt after a backoff; other failures are not retried. A trajectory
 * whose analysis still fails gets `null` (no skill signal), the failure is counted by reason, and the run goes on.
 *
 * The API key lives in a private field and is sent only in the Authorization header: no error, reason, stat or
 * thrown message contains it (reasons are fixed phrases; server error bodies are never echoed).
 */
import type { Analyzer, AnalyzerGroup, AnalyzerOptions, AnalyzerStats, AnalyzerTrajectory, AnalysisResult, TrajectorySkills } from './types';
import { DEFAULT_HTTP_PROMPT, STRICT_SUFFIX, renderPrompt, type PromptTemplate } from './prompt';
import { DEFAULT_MAX_SKILL_CHARS, repairJson, validateSkills } from './repair';

/** Options of the `http` analyzer (issue #4). */
export interface HttpAnalyzerOptions extends AnalyzerOptions {
  /**
   * Server root, `http://` or `https://`, e.g. `http://localhost:11434` (Ollama), `http://localhost:8080`
   * (llama.cpp), `https://api.openai.com`. A trailing `/v1` or `/v1/chat/completions` is accepted and not doubled.
   * No user:password, query or fragment (the constructor throws).
   */
  baseUrl: string;
  /** Model name sent in the request, e.g. `qwen2.5:7b-instruct`. Required, non-empty. */
  model: string;
  /** Optional API key, sent as `Authorization: Bearer <key>`; surrounding whitespace is trimmed. Empty/absent = no header. */
  apiKey?: string;
  /** Per-request limit (ms), covering the whole reply. Default 20 000. */
  timeoutMs?: number;
  /** Max requests in flight for this analyzer (across concurrent `analyze` calls). Integer ≥ 1, default 4. */
  concurrency?: number;
  /** Retries per trajectory after the first request. Integer ≥ 0, default 2 (0 = never retry). */
  maxRetries?: number;
  /** Max characters per skill after cleaning (cut at a word boundary). Integer ≥ 1, default 200. */
  maxSkillChars?: number;
  /** Prompt template (placeholders in prompt.ts). Default `DEFAULT_HTTP_PROMPT`. */
  promptTemplate?: PromptTemplate;
  /** Base backoff (ms) before retrying 408/429/5xx/timeouts; doubles per retry, at least Retry-After, at most 30 s. Default 500. */
  retryDelayMs?: number;
  /** fetch implementation (tests, proxies). Default `globalThis.fetch`. */
  fetchImpl?: typeof fetch;
}

type Retry = 'no' | 'same' | 'strict';
type Attempt = { ok: true; skills: TrajectorySkills } | { ok: false; reason: string; retry: Retry; waitMs?: number };

const MAX_RETRY_DELAY_MS = 30_000;

const fail = (field: string, rule: string, fix: string) => new Error(`http analyzer: ${field} ${rule}; fix: ${fix}`);
const isInt = (x: unknown, min: number) => Number.isInteger(x) && (x as number) >= min;

/** An OpenAI-compatible chat-completions analyzer. See the module doc. */
export class HttpAnalyzer implements Analyzer {
  readonly name = 'http';
  /** The request URL, `{baseUrl}/v1/chat/completions`. */
  readonly endpoint: string;
  readonly #apiKey: string;
  private readonly origin: string;
  private readonly o: Required<Omit<HttpAnalyzerOptions, 'apiKey' | 'fetchImpl' | 'failedOnly'>> & { failedOnly: boolean };
  private readonly fetchFn: typeof fetch;
  private readonly s: AnalyzerStats = { calls: 0, failures: 0, latencyMs: 0, failureReasons: {} };
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  /**
   * @throws Error naming the field, the rule and the fix, when baseUrl is not an http(s) URL (or has credentials, a
   *   query or a fragment), model is empty, apiKey has characters a header cannot carry, or a number is out of range.
   *   Messages never contain the key or the raw baseUrl (a key pasted into the wrong field must not leak).
   */
  constructor(opts: HttpAnalyzerOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw fail('baseUrl', 'is not a valid URL', 'give the server root, e.g. http://localhost:11434 (Ollama) or https://api.openai.com');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail('baseUrl', 'must start with http:// or https://', 'give the server root, e.g. http://localhost:11434');
    if (url.username || url.password) throw fail('baseUrl', 'must not contain a user name or password', 'put the key in the apiKey field');
    if (url.search || url.hash) throw fail('baseUrl', 'must not contain a query (?…) or fragment (#…)', 'give only the server root, e.g. https://api.openai.com');
    const path = url.pathname.replace(/\/+$/, '').replace(/(\/v1)?(\/chat\/completions)?$/, '');
    this.origin = url.origin;
    this.endpoint = `${url.origin}${path}/v1/chat/completions`;
    this.#apiKey = (opts.apiKey ?? '').trim();
    if (this.#apiKey && !/^[\x21-\x7e]+$/.test(this.#apiKey)) throw fail('apiKey', 'contains spaces, line breaks or non-ASCII characters', 'paste the key again without extra characters');
    if (typeof opts.model !== 'string' || !opts.model.trim()) throw fail('model', 'is empty', 'give the model name the server serves, e.g. qwen2.5:7b-instruct');
    this.o = {
      baseUrl: url.origin + path, model: opts.model.trim(), maxStepSkills: opts.maxStepSkills, failedOnly: opts.failedOnly ?? false,
      timeoutMs: opts.timeoutMs ?? 20_000, concurrency: opts.concurrency ?? 4, maxRetries: opts.maxRetries ?? 2,
      maxSkillChars: opts.maxSkillChars ?? DEFAULT_MAX_SKILL_CHARS, promptTemplate: opts.promptTemplate ?? DEFAULT_HTTP_PROMPT,
      retryDelayMs: opts.retryDelayMs ?? 500,
    };
    const o = this.o;
    if (!isInt(o.maxStepSkills, 0)) throw fail('maxStepSkills', `must be an integer ≥ 0, got ${o.maxStepSkills}`, 'use 5 (household, shop) or 2 (search-QA)');
    if (!(o.timeoutMs > 0 && Number.isFinite(o.timeoutMs))) throw fail('timeoutMs', `must be a positive number of ms, got ${o.timeoutMs}`, 'use 20000');
    if (!isInt(o.concurrency, 1)) throw fail('concurrency', `must be an integer ≥ 1, got ${o.concurrency}`, 'use 4');
    if (!isInt(o.maxRetries, 0)) throw fail('maxRetries', `must be an integer ≥ 0, got ${o.maxRetries}`, 'use 2');
    if (!isInt(o.maxSkillChars, 1)) throw fail('maxSkillChars', `must be an integer ≥ 1, got ${o.maxSkillChars}`, 'use 200');
    if (!(o.retryDelayMs >= 0 && Number.isFinite(o.retryDelayMs))) throw fail('retryDelayMs', `must be a number ≥ 0, got ${o.retryDelayMs}`, 'use 500');
    const impl = opts.fetchImpl;
    // Called unbound: browsers throw "Illegal invocation" when fetch's `this` is not the global object.
    this.fetchFn = impl ? (input, init) => impl(input, init) : (input, init) => globalThis.fetch(input, init);
  }

  /**
   * Skills per trajectory, in the group's order; `null` where the analysis failed (counted in `stats()`) or, with
   * `failedOnly`, for successful trajectories (no request made).
   * @throws the signal's reason when `signal` aborts (a stopped run); bad replies and HTTP errors never throw.
   */
  async analyze(group: AnalyzerGroup, signal?: AbortSignal): Promise<AnalysisResult> {
    return Promise.all(group.trajectories.map((t) => this.analyzeOne(t, signal)));
  }

  /** Cumulative counters (a copy): calls = requests made, retries included; latencyMs = their summed duration. */
  stats(): AnalyzerStats {
    return { ...this.s, failureReasons: { ...this.s.failureReasons } };
  }

  private async analyzeOne(t: AnalyzerTrajectory, signal?: AbortSignal): Promise<TrajectorySkills | null> {
    if (this.o.failedOnly && t.success) return null;
    let strict = false;
    let last: Extract<Attempt, { ok: false }> | undefined;
    for (let i = 0; i <= this.o.maxRetries; i++) {
      if (last?.retry === 'same') await sleep(Math.min(MAX_RETRY_DELAY_MS, Math.max(this.o.retryDelayMs * 2 ** (i - 1), last.waitMs ?? 0)), signal);
      const r = await this.withSlot(() => this.attempt(t, strict, signal));
      if (r.ok) return r.skills;
      last = r;
      if (r.retry === 'no') break;
      if (r.retry === 'strict') strict = true;
    }
    const reason = last!.reason;
    this.s.failures++;
    this.s.failureReasons[reason] = (this.s.failureReasons[reason] ?? 0) + 1;
    return null;
  }

  /** One request. Returns skills or a failure with its retry kind; throws only when `signal` aborted. */
  private async attempt(t: AnalyzerTrajectory, strict: boolean, signal?: AbortSignal): Promise<Attempt> {
    signal?.throwIfAborted();
    const { model, maxStepSkills: K, maxSkillChars, timeoutMs } = this.o;
    const p = renderPrompt(this.o.promptTemplate, t, K, maxSkillChars);
    const body = JSON.stringify({
      model, temperature: 0, stream: false, response_format: { type: 'json_object' },
      messages: [{ role: 'system', content: p.system }, { role: 'user', content: p.user + (strict ? STRICT_SUFFIX : '') }],
    });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; ctl.abort(); }, timeoutMs);
    const onAbort = () => ctl.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const t0 = performance.now();
    this.s.calls++;
    try {
      const res = await this.fetchFn(this.endpoint, { method: 'POST', headers, body, signal: ctl.signal });
      const text = await res.text(); // inside the timer: a server that stalls mid-body also times out
      if (!res.ok) return httpFailure(res.status, res.headers.get('retry-after'));
      return this.readReply(text, t.steps.length);
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) return { ok: false, reason: `timed out after ${timeoutMs} ms`, retry: 'same' };
      return networkFailure(e, this.origin);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      this.s.latencyMs += performance.now() - t0;
    }
  }

  /** Chat-completion envelope → message content → repaired JSON → validated skills. */
  private readReply(text: string, nSteps: number): Attempt {
    if (!text.trim()) return { ok: false, reason: 'reply was empty', retry: 'strict' };
    let env: unknown;
    try {
      env = JSON.parse(text);
    } catch {
      return { ok: false, reason: 'reply was not a chat completion (check the base URL)', retry: 'same' };
    }
    const msg = (env as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message;
    let content = msg?.content;
    if (Array.isArray(content)) content = content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
    if (typeof content !== 'string') return { ok: false, reason: 'reply had no message content', retry: 'strict' };
    const j = repairJson(content);
    if (!j.ok) return { ok: false, reason: j.reason, retry: 'strict' };
    const v = validateSkills(j.value, nSteps, this.o.maxStepSkills, this.o.maxSkillChars);
    return v.ok ? { ok: true, skills: v.skills } : { ok: false, reason: v.reason, retry: 'strict' };
  }

  /** Run `fn` holding one of `concurrency` slots (FIFO). */
  private async withSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.o.concurrency) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve)); // the releaser hands its slot over
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** A non-2xx status in words; 408, 429 and 5xx are retried. The server's body is never echoed (it may quote the key). */
function httpFailure(status: number, retryAfter: string | null): Attempt {
  const words: Record<number, string> = {
    400: 'request rejected: the server may not support this model or JSON output', 401: 'API key rejected',
    403: 'access denied', 404: 'not found: check the base URL and model name', 408: 'server timed out',
    413: 'prompt too large', 429: 'rate limited',
  };
  const reason = `HTTP ${status} (${words[status] ?? (status >= 500 ? 'server error' : 'request rejected')})`;
  const retry: Retry = status === 408 || status === 429 || status >= 500 ? 'same' : 'no';
  return { ok: false, reason, retry, waitMs: parseRetryAfter(retryAfter) };
}

/** Retry-After (seconds or an HTTP date) in ms; 0 when absent or unreadable. */
function parseRetryAfter(h: string | null): number {
  if (!h) return 0;
  const sec = Number(h);
  const ms = Number.isFinite(sec) ? sec * 1000 : Date.parse(h) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : 0;
}

/** A rejected fetch in words. Node (undici) puts the system error code on `cause`; browsers say only "Failed to fetch". */
function networkFailure(e: unknown, origin: string): Attempt {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  if (code === 'ECONNREFUSED') return { ok: false, reason: `connection refused at ${origin} (is the server running?)`, retry: 'no' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { ok: false, reason: `host not found: ${new URL(origin).hostname}`, retry: 'no' };
  if (/CERT|SSL|TLS/.test(code)) return { ok: false, reason: `TLS certificate problem at ${origin}`, retry: 'no' };
  if (cause?.message === 'bad port') return { ok: false, reason: `port blocked by fetch at ${origin} (use another port)`, retry: 'no' };
  if (code === 'ECONNRESET' || code.startsWith('UND_ERR')) return { ok: false, reason: `connection dropped by ${origin}`, retry: 'same' };
  return { ok: false, reason: `could not reach ${origin} (server down, wrong URL, or blocked by CORS)`, retry: 'same' };
}

/** Wait `ms`, rejecting with the signal's reason if it aborts first. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => { signal?.removeEventListener('abort', onAbort); resolve(); };
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What `testConnection` is asked (issue #4 "test connection" button). Same meaning as in `HttpAnalyzerOptions`. */
export interface ConnectionTest {
  /** Server root, `http://` or `https://` (as `HttpAnalyzerOptions.baseUrl`). */
  baseUrl: string;
  /** Model name sent in the request. */
  model: string;
  /** Optional API key (`Authorization: Bearer`); never part of the result. */
  apiKey?: string;
  /** Limit of the one request (ms), covering the whole reply. Default 20 000. */
  timeoutMs?: number;
  /** fetch implementation (tests). Default `globalThis.fetch`. */
  fetchImpl?: typeof fetch;
}

/**
 * Outcome of `testConnection`: the reply's model name (the one asked for when the reply names none) and the
 * request's wall time (ms), or why it failed, in the words the analyzer's failure counts use ("HTTP 401 (API key
 * rejected)", "timed out after 20000 ms", "connection refused at http://…", a bad base URL …). Never contains the key.
 */
export type ConnectionResult = { ok: true; latencyMs: number; model: string } | { ok: false; reason: string };

/** The reason of a failed attempt ('' for a success, which the callers never pass). */
const reasonOf = (a: Attempt) => (a.ok ? '' : a.reason);

/**
 * One minimal chat-completions request (JSON output asked for, temperature 0, as the analyzer sends) to check the
 * base URL, model and key before a run (issue #4 "test connection"). No retries. Never throws: a bad base URL or
 * model, an HTTP error, a timeout, a refused connection and a reply that is not a chat completion all come back as
 * `{ok: false, reason}`.
 */
export async function testConnection(t: ConnectionTest): Promise<ConnectionResult> {
  try {
    const a = new HttpAnalyzer({ baseUrl: t.baseUrl, model: t.model, apiKey: t.apiKey, timeoutMs: t.timeoutMs, maxStepSkills: 0 });
    const timeoutMs = t.timeoutMs ?? 20_000;
    const apiKey = (t.apiKey ?? '').trim();
    const model = t.model.trim();
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const body = JSON.stringify({
      model, temperature: 0, stream: false, response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: 'Connection test. Reply with the JSON object {"ok": true} and nothing else.' }],
    });
    const impl = t.fetchImpl;
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; ctl.abort(); }, timeoutMs);
    const t0 = performance.now();
    try {
      const res = await (impl ? impl(a.endpoint, { method: 'POST', headers, body, signal: ctl.signal }) : globalThis.fetch(a.endpoint, { method: 'POST', headers, body, signal: ctl.signal }));
      const text = await res.text();
      const latencyMs = performance.now() - t0;
      if (!res.ok) return { ok: false, reason: reasonOf(httpFailure(res.status, null)) };
      let env: { model?: unknown; choices?: { message?: { content?: unknown } }[] } | null;
      try {
        env = JSON.parse(text);
      } catch {
        return { ok: false, reason: text.trim() ? 'reply was not a chat completion (check the base URL)' : 'reply was empty' };
      }
      const content = env?.choices?.[0]?.message?.content;
      if (typeof content !== 'string' && !Array.isArray(content)) return { ok: false, reason: 'reply had no message content' };
      return { ok: true, latencyMs, model: typeof env?.model === 'string' && env.model ? env.model : model };
    } catch (e) {
      if (timedOut) return { ok: false, reason: `timed out after ${timeoutMs} ms` };
      return { ok: false, reason: reasonOf(networkFailure(e, new URL(a.endpoint).origin)) };
    } finally {
      clearTimeout(timer);
    }
  } catch (e) {
    // The constructor's messages name the field, the rule and the fix, never the key or the raw URL.
    return { ok: false, reason: e instanceof Error ? e.message : 'the analyzer settings are not usable' };
  }
}
