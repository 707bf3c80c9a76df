/**
 * The `http` analyzer (OPID paper §3): any OpenAI-compatible `POST {baseUrl}/v1/chat/completions`
 * endpoint (Ollama, llama.cpp server, vLLM, hosted APIs). One request per trajectory (JSON output requested,
 * temperature 0), at most `concurrency` requests in flight per analyzer, each bounded by `timeoutMs`. The reply is
 * repaired and validated (repair.ts). A bad reply is retried with a stricter prompt; 408/429/5xx, timeouts and
 * dropped connections are retried with the same prompt after a backoff; other failures are not retried. A trajectory
 * whose analysis still fails gets `null` (no skill signal), the failure is counted by reason, and the run goes on.
 *
 * Real servers differ from the OpenAI reference; each known difference gets the skills or a reason naming the cause
 * and the fix, never a vague "not JSON": a `<think>…</think>` block before the answer (stripped; a block cut off
 * unclosed is named), an answer only in `reasoning_content` / `reasoning` (a failure: message content is the only
 * answer used), finish_reason "length" (cut at max_tokens), `choices` empty or missing, content as an array of parts,
 * an `error` object inside a 200 reply (OpenRouter), a `data:` event stream although stream: false was sent, an HTML
 * page, a 400 rejecting `response_format` (sent once more at once without it, and never again by this analyzer), a
 * missing model (404/400), a prompt over the context window, an exhausted quota, 401 without a key, and a Retry-After
 * longer than the request limit.
 *
 * The API key lives in a private field and is sent only in the Authorization header: no error, reason, stat or
 * thrown message contains it (reasons are fixed phrases; server error bodies are never echoed).
 */
import type { Analyzer, AnalyzerGroup, AnalyzerOptions, AnalyzerStats, AnalyzerTrajectory, AnalysisResult, TrajectorySkills } from './types';
import { DEFAULT_HTTP_PROMPT, STRICT_SUFFIX, renderPrompt, type PromptTemplate } from './prompt';
import { DEFAULT_MAX_SKILL_CHARS, repairJson, stripThinking, validateSkills } from './repair';

/** Options of the `http` analyzer. */
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
  /**
   * Base backoff (ms) before retrying 408/429/5xx/timeouts; doubles per retry, at most 30 s, but at least the
   * Retry-After the server asked for (a Retry-After longer than `timeoutMs` is not waited for: the trajectory fails).
   * Default 500.
   */
  retryDelayMs?: number;
  /** fetch implementation (tests, proxies). Default `globalThis.fetch`. */
  fetchImpl?: typeof fetch;
}

type Retry = 'no' | 'same' | 'strict';
type Failure = { ok: false; reason: string; retry: Retry; waitMs?: number };
type Attempt = { ok: true; skills: TrajectorySkills } | Failure;

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
  /** False once the server rejected `response_format` (HTTP 400): later requests ask for JSON in the prompt only. */
  private jsonMode = true;
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
    let last: Failure | undefined;
    for (let i = 0; i <= this.o.maxRetries; i++) {
      // Backoff capped at 30 s, but never shorter than the Retry-After the server asked for (at most timeoutMs, see httpFailure).
      if (last?.retry === 'same') await sleep(Math.max(Math.min(MAX_RETRY_DELAY_MS, this.o.retryDelayMs * 2 ** (i - 1)), last.waitMs ?? 0), signal);
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

  /** One request (two when the server rejects JSON mode). Returns skills or a failure with its retry kind; throws only when `signal` aborted. */
  private async attempt(t: AnalyzerTrajectory, strict: boolean, signal?: AbortSignal): Promise<Attempt> {
    signal?.throwIfAborted();
    const { model, maxStepSkills: K, maxSkillChars, timeoutMs } = this.o;
    const p = renderPrompt(this.o.promptTemplate, t, K, maxSkillChars);
    const messages = [{ role: 'system', content: p.system }, { role: 'user', content: p.user + (strict ? STRICT_SUFFIX : '') }];
    const x = await exchange({ fetchFn: this.fetchFn, endpoint: this.endpoint, apiKey: this.#apiKey, model, timeoutMs, messages, jsonMode: this.jsonMode, signal }, this.s);
    if (!x.jsonMode) this.jsonMode = false; // the server said it has no JSON mode: the prompt alone asks for JSON from now on
    if (x.kind === 'timeout') return { ok: false, reason: `timed out after ${timeoutMs} ms`, retry: 'same' };
    if (x.kind === 'error') return networkFailure(x.error, this.origin);
    const ctx = { model, timeoutMs, hasKey: !!this.#apiKey };
    if (!x.ok) return httpFailure(x.status, x.headers, x.text, ctx);
    return this.readReply(x.text, t.steps.length, ctx);
  }

  /** Chat-completion envelope → message content without thinking → repaired JSON → validated skills. */
  private readReply(text: string, nSteps: number, ctx: Ctx): Attempt {
    const e = readEnvelope(text, ctx);
    if (!e.ok) return e;
    const th = stripThinking(e.content);
    if (!th.ok) return { ok: false, reason: th.reason, retry: 'no' };
    const f = finishFailure(e.finish); // cut at max_tokens or filtered: even JSON that parses may be a fragment
    if (f) return f;
    const j = repairJson(th.text);
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

/** What the reply readers need to name a cause: the model asked for, the request limit (ms), whether a key was sent. */
interface Ctx { model: string; timeoutMs: number; hasKey: boolean }

/** The reason when the server stopped at its output-token limit (finish_reason "length"). */
const CUT_AT_MAX_TOKENS = 'reply cut at max_tokens (finish_reason "length"); raise max_tokens on the server (Ollama num_predict, llama.cpp -n)';
const NOT_COMPLETION = 'reply was not a chat completion (check the base URL)';

// Server error bodies are only matched against these, never echoed (they may quote the key).
const JSON_MODE_REJECTED = /response_format|json_object|json_schema|json mode/i;
const MODEL_MISSING = /model_not_found|no endpoints found|try pulling|\bmodel\b[^\n]{0,60}?(not found|does not exist|doesn't exist|no such|unknown|not a valid|invalid)|(unknown|invalid|not a valid) model/i;
const CONTEXT_EXCEEDED = /context[ _](length|size|window)|maximum context|exceeds? the (available )?context|n_ctx|too many tokens|prompt is too long/i;
const QUOTA = /insufficient_quota|exceeded your current quota|quota exceeded|out of credits|insufficient credits/i;

/**
 * A status in words, with the fix where the body tells the cause (a missing model, a prompt over the context window,
 * an exhausted quota, no key given), and whether it is retried (408, 429 and 5xx, except an exhausted quota).
 */
function statusWords(status: number, body: string, c: Ctx): { words: string; retry: Retry } {
  if ((status === 404 || status === 400) && MODEL_MISSING.test(body))
    return { words: `model "${c.model}" not found: check the name against the server's /v1/models list; with Ollama run "ollama pull ${c.model}"`, retry: 'no' };
  if ((status === 400 || status === 413) && CONTEXT_EXCEEDED.test(body))
    return { words: "prompt longer than the model's context window: raise the server's context size (llama.cpp -c, Ollama num_ctx) or use a model with a longer context", retry: 'no' };
  if (status === 429 && QUOTA.test(body)) return { words: 'quota exhausted: the account has no credit left; check its billing', retry: 'no' };
  if (status === 401 && !c.hasKey) return { words: 'API key missing: this server needs one; give it in the key field or OPD_ANALYZER_API_KEY', retry: 'no' };
  const words: Record<number, string> = {
    400: 'request rejected: the server may not support this model or JSON output', 401: 'API key rejected',
    402: 'payment required: the account has no credit left', 403: 'access denied: the key lacks access to this model, or a proxy blocks the request',
    404: 'not found: check the base URL and model name', 408: 'server timed out', 413: 'prompt too large', 429: 'rate limited',
    502: 'bad gateway: a proxy got no answer from the model server; is it running?',
    503: 'server unavailable: overloaded or still loading the model', 504: 'gateway timeout: a proxy gave up waiting for the model server',
  };
  const retry: Retry = status === 408 || status === 429 || status >= 500 ? 'same' : 'no';
  return { words: words[status] ?? (status >= 500 ? 'server error' : 'request rejected'), retry };
}

/**
 * A non-2xx reply in words (`statusWords`). A Retry-After (or OpenAI's retry-after-ms) is honoured when it fits in the
 * request limit; a longer one is not waited for and the trajectory fails at once, the wait named in the reason.
 */
function httpFailure(status: number, headers: Headers, body: string, c: Ctx): Failure {
  const w = statusWords(status, body, c);
  const waitMs = retryAfterMs(headers);
  if (w.retry === 'same' && waitMs > c.timeoutMs)
    return { ok: false, reason: `HTTP ${status} (${w.words}; the server asks to wait ${Math.ceil(waitMs / 1000)} s, longer than the ${c.timeoutMs} ms timeout; retry later)`, retry: 'no' };
  return { ok: false, reason: `HTTP ${status} (${w.words})`, retry: w.retry, waitMs };
}

/** The wait a reply asks for (ms): `retry-after-ms`, else `Retry-After` (seconds or an HTTP date); 0 when absent or unreadable. */
function retryAfterMs(h: Headers): number {
  const ms = Number(h.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms)) return Math.max(0, ms);
  const v = h.get('retry-after');
  if (!v) return 0;
  const sec = Number(v);
  const t = Number.isFinite(sec) ? sec * 1000 : Date.parse(v) - Date.now();
  return Number.isFinite(t) ? Math.max(0, t) : 0;
}

/**
 * An `error` object (or string) inside a 200 reply, as OpenRouter and some proxies send, in words: its numeric
 * `code` (or one guessed from the text) through `statusWords`, plus an identifier-like `code`/`type` when there is one.
 */
function errorInReply(err: unknown, c: Ctx): Failure {
  const e = typeof err === 'object' && err !== null ? (err as Record<string, unknown>) : {};
  const text = [typeof err === 'string' ? err : '', e.message, e.code, e.type].filter((v) => typeof v === 'string').join(' ');
  const n = Number(e.code ?? e.status);
  const code = Number.isInteger(n) && n >= 400 && n < 600 ? n : 0;
  const guess = code || (MODEL_MISSING.test(text) ? 404 : QUOTA.test(text) ? 429 : /api[ _-]?key|unauthori[sz]ed|authentication/i.test(text) ? 401 : 500);
  const w = statusWords(guess, text, c);
  const id = [e.code, e.type].find((v): v is string => typeof v === 'string' && /^[A-Za-z][\w.-]{0,39}$/.test(v));
  return { ok: false, reason: `error inside a 200 reply (${code ? `code ${code}: ` : id ? `${id}: ` : ''}${w.words})`, retry: w.retry };
}

/** A chat completion's answer: message content (text parts joined), finish_reason ('' when absent), served model name. */
type Envelope = { ok: true; content: string; finish: string; model: string } | Failure;
const REASONING_FIELDS = ['reasoning_content', 'reasoning', 'thinking'] as const;

/** Message content as text: a string, or the text parts of an array of parts (thinking parts set `thinking`). */
function contentText(content: unknown): { text: string; thinking: boolean } | undefined {
  if (typeof content === 'string') return { text: content, thinking: false };
  if (!Array.isArray(content)) return undefined;
  let text = '';
  let thinking = false;
  for (const part of content as { type?: unknown; text?: unknown }[]) {
    const type = part?.type;
    if (type === 'thinking' || type === 'reasoning') thinking = true;
    else if ((type === undefined || type === 'text' || type === 'output_text') && typeof part?.text === 'string') text += part.text;
  }
  return { text, thinking };
}

/** A `data:` event stream (sent although stream: false was asked) folded into one completion; undefined when unreadable. */
function fromEventStream(body: string): Record<string, unknown> | undefined {
  let content = '';
  let reasoning = '';
  let finish: string | null = null;
  let model = '';
  let error: unknown;
  let chunks = 0;
  for (const line of body.split(/\r?\n/)) {
    const m = /^data:\s?(.*)$/.exec(line);
    const d = m?.[1].trim();
    if (!d || d === '[DONE]') continue;
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(d);
    } catch {
      return undefined;
    }
    chunks++;
    if (chunk?.error != null) error = chunk.error;
    if (typeof chunk?.model === 'string') model = chunk.model;
    const c = (chunk?.choices as Record<string, unknown>[] | undefined)?.[0];
    if (!c) continue;
    const delta = (c.delta ?? c.message ?? {}) as Record<string, unknown>;
    content += contentText(delta.content)?.text ?? (typeof c.text === 'string' ? c.text : '');
    for (const k of REASONING_FIELDS) if (typeof delta[k] === 'string') reasoning += delta[k];
    if (typeof c.finish_reason === 'string') finish = c.finish_reason;
  }
  if (!chunks) return undefined;
  const choices = content || reasoning || error == null ? [{ message: { content, reasoning_content: reasoning }, finish_reason: finish }] : [];
  return { model, choices, ...(error != null ? { error } : {}) };
}

/**
 * A 2xx body → the first choice's answer, or why there is none: empty, HTML, not JSON, an event stream that could not
 * be read, an error object, no choices, no content, or content only in a reasoning field (`reasoning_content`,
 * `reasoning`, `thinking`: a thinking model whose answer never reached the content).
 */
function readEnvelope(text: string, c: Ctx): Envelope {
  const body = text.replace(/^\uFEFF/, '').trim();
  if (!body) return { ok: false, reason: 'reply was empty', retry: 'strict' };
  let env: unknown;
  if (/^data:/m.test(body) && /^(data|event|id|retry):|^:/.test(body)) {
    env = fromEventStream(body);
    if (!env) return { ok: false, reason: 'reply was an event stream (data: lines) that held no chat completion (check the base URL)', retry: 'same' };
  } else {
    try {
      env = JSON.parse(body);
    } catch {
      if (/^<(!doctype|html|head|body)/i.test(body) || /<html[\s>]/i.test(body.slice(0, 1000)))
        return { ok: false, reason: 'reply was an HTML page, not a chat completion (check the base URL: give the API root, e.g. http://localhost:11434)', retry: 'same' };
      return { ok: false, reason: NOT_COMPLETION, retry: 'same' };
    }
  }
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return { ok: false, reason: NOT_COMPLETION, retry: 'same' };
  const o = env as Record<string, unknown>;
  const choices = o.choices;
  if (!Array.isArray(choices) || !choices.length) {
    if (o.error != null) return errorInReply(o.error, c);
    if (!Array.isArray(choices)) return { ok: false, reason: 'reply was JSON without "choices", not a chat completion (check the base URL)', retry: 'same' };
    return { ok: false, reason: 'reply had no choices (the server returned an empty completion)', retry: 'same' };
  }
  const ch = (choices[0] ?? {}) as Record<string, unknown>;
  const finish = typeof ch.finish_reason === 'string' ? ch.finish_reason : '';
  if (ch.error != null || finish === 'error') return errorInReply(ch.error ?? o.error, c);
  const msg = (ch.message ?? ch.delta ?? {}) as Record<string, unknown>;
  const got = contentText(msg.content) ?? (typeof ch.text === 'string' ? { text: ch.text, thinking: false } : undefined);
  if (got?.text.trim()) return { ok: true, content: got.text, finish, model: typeof o.model === 'string' ? o.model : '' };
  const field = REASONING_FIELDS.find((k) => typeof msg[k] === 'string' && (msg[k] as string).trim()) ?? (got?.thinking ? 'thinking parts of the content' : '');
  if (field && finish === 'length')
    return { ok: false, reason: `reply cut at max_tokens while the model was still reasoning (${field}), before any answer; raise max_tokens or use a non-reasoning model`, retry: 'no' };
  if (field)
    return { ok: false, reason: `the model answered only in ${field}, its message content was empty; use a non-reasoning model, turn thinking off (Qwen3: /no_think; vLLM, llama.cpp: enable_thinking=false; Ollama: think=false) or raise max_tokens`, retry: 'no' };
  if (typeof msg.refusal === 'string' && msg.refusal.trim()) return { ok: false, reason: 'the model refused to answer (message.refusal); check the prompt template', retry: 'no' };
  const f = finishFailure(finish);
  if (f) return f;
  return { ok: false, reason: got ? 'reply was empty' : 'reply had no message content', retry: 'strict' };
}

/** A finish_reason that makes the content unusable: cut at the token limit, or blocked by a content filter. */
function finishFailure(finish: string): Failure | undefined {
  if (finish === 'length') return { ok: false, reason: CUT_AT_MAX_TOKENS, retry: 'no' };
  if (finish === 'content_filter') return { ok: false, reason: 'reply blocked by the server\'s content filter (finish_reason "content_filter")', retry: 'no' };
  return undefined;
}

/** One request's outcome; `jsonMode` says whether JSON mode was still on when it ended. */
type Exchange = ({ kind: 'reply'; ok: boolean; status: number; headers: Headers; text: string } | { kind: 'timeout' } | { kind: 'error'; error: unknown }) & { jsonMode: boolean };

interface ExchangeRequest {
  fetchFn: typeof fetch;
  endpoint: string;
  apiKey: string;
  model: string;
  /** Limit of each request (ms), covering the whole reply. */
  timeoutMs: number;
  messages: { role: string; content: string }[];
  /** Ask for `response_format: {type: "json_object"}`. */
  jsonMode: boolean;
  signal?: AbortSignal;
}

/**
 * POST the chat completion; when the server rejects JSON mode (HTTP 400 naming response_format / json_object), send
 * it once more at once without it. `counts` gets +1 call per request and its duration (ms). Throws only the signal's
 * reason when `signal` aborted.
 */
async function exchange(r: ExchangeRequest, counts: { calls: number; latencyMs: number }): Promise<Exchange> {
  const x = await post(r, r.jsonMode, counts);
  if (r.jsonMode && x.kind === 'reply' && x.status === 400 && JSON_MODE_REJECTED.test(x.text)) return { ...(await post(r, false, counts)), jsonMode: false };
  return { ...x, jsonMode: r.jsonMode };
}

/** One POST bounded by `r.timeoutMs` (body included); counts it in `counts`. Throws only the signal's reason. */
async function post(r: ExchangeRequest, jsonMode: boolean, counts: { calls: number; latencyMs: number }) {
  r.signal?.throwIfAborted();
  const body = JSON.stringify({
    model: r.model, temperature: 0, stream: false, ...(jsonMode ? { response_format: { type: 'json_object' } } : {}), messages: r.messages,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (r.apiKey) headers.authorization = `Bearer ${r.apiKey}`;
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; ctl.abort(); }, r.timeoutMs);
  const onAbort = () => ctl.abort();
  r.signal?.addEventListener('abort', onAbort, { once: true });
  const t0 = performance.now();
  counts.calls++;
  try {
    const res = await r.fetchFn(r.endpoint, { method: 'POST', headers, body, signal: ctl.signal });
    const text = await res.text(); // inside the timer: a server that stalls mid-body also times out
    return { kind: 'reply' as const, ok: res.ok, status: res.status, headers: res.headers, text };
  } catch (e) {
    if (r.signal?.aborted) throw r.signal.reason;
    return timedOut ? { kind: 'timeout' as const } : { kind: 'error' as const, error: e };
  } finally {
    clearTimeout(timer);
    r.signal?.removeEventListener('abort', onAbort);
    counts.latencyMs += performance.now() - t0;
  }
}

/** A rejected fetch in words. Node (undici) puts the system error code on `cause`; browsers say only "Failed to fetch". */
function networkFailure(e: unknown, origin: string): Failure {
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

/** What `testConnection` is asked (the page's "Test connection" button). Same meaning as in `HttpAnalyzerOptions`. */
export interface ConnectionTest {
  /** Server root, `http://` or `https://` (as `HttpAnalyzerOptions.baseUrl`). */
  baseUrl: string;
  /** Model name sent in the request. */
  model: string;
  /** Optional API key (`Authorization: Bearer`); never part of the result. */
  apiKey?: string;
  /** Limit of the request (ms), covering the whole reply; the resend without JSON mode gets its own. Default 20 000. */
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

/**
 * One minimal chat-completions request (JSON output asked for, temperature 0, as the analyzer sends; sent once more
 * without JSON mode when the server rejects it) to check the base URL, model and key before a run (test
 * connection). No other retries. OK only when the reply carries answer text in its message content after any
 * `<think>` block, so a reasoning model that answers only in `reasoning_content`, or is cut at max_tokens, fails here
 * with the reason the run would count. `latencyMs` is the wall time of the request(s) in ms. Never throws: a bad base
 * URL or model, an HTTP error, a timeout, a refused connection and a reply that is not a usable chat completion all
 * come back as `{ok: false, reason}`.
 */
export async function testConnection(t: ConnectionTest): Promise<ConnectionResult> {
  let endpoint: string;
  try {
    endpoint = new HttpAnalyzer({ baseUrl: t.baseUrl, model: t.model, apiKey: t.apiKey, timeoutMs: t.timeoutMs, maxStepSkills: 0 }).endpoint;
  } catch (e) {
    // The constructor's messages name the field, the rule and the fix, never the key or the raw URL.
    return { ok: false, reason: e instanceof Error ? e.message : 'the analyzer settings are not usable' };
  }
  const timeoutMs = t.timeoutMs ?? 20_000;
  const apiKey = (t.apiKey ?? '').trim();
  const model = t.model.trim();
  const impl = t.fetchImpl;
  const fetchFn: typeof fetch = impl ? (input, init) => impl(input, init) : (input, init) => globalThis.fetch(input, init);
  const counts = { calls: 0, latencyMs: 0 };
  const messages = [{ role: 'user', content: 'Connection test. Reply with the JSON object {"ok": true} and nothing else.' }];
  const x = await exchange({ fetchFn, endpoint, apiKey, model, timeoutMs, messages, jsonMode: true }, counts);
  if (x.kind === 'timeout') return { ok: false, reason: `timed out after ${timeoutMs} ms` };
  if (x.kind === 'error') return { ok: false, reason: networkFailure(x.error, new URL(endpoint).origin).reason };
  const ctx = { model, timeoutMs, hasKey: !!apiKey };
  if (!x.ok) return { ok: false, reason: httpFailure(x.status, x.headers, x.text, ctx).reason };
  const e = readEnvelope(x.text, ctx);
  if (!e.ok) return { ok: false, reason: e.reason };
  const th = stripThinking(e.content);
  if (!th.ok) return { ok: false, reason: th.reason };
  const f = finishFailure(e.finish);
  if (f) return { ok: false, reason: f.reason };
  return { ok: true, latencyMs: counts.latencyMs, model: e.model || model };
}
