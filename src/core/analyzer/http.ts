/**
 * The `http` analyzer (OPID, Yang et al. 2026, §3; docs/references.md#opid): any OpenAI-compatible `POST
 * {baseUrl}/v1/chat/completions` endpoint (Ollama, llama.cpp server, vLLM, hosted APIs). One request per trajectory
 * (JSON output requested, temperature 0), at most `concurrency` requests in flight per analyzer, each bounded by
 * `timeoutMs`. The reply is repaired and validated (repair.ts). A bad reply is retried with a stricter prompt;
 * 408/429/5xx, timeouts and dropped connections are retried with the same prompt after a backoff; other failures are
 * not retried. A trajectory whose analysis still fails gets `null` (no skill signal), the failure is counted by reason,
 * and the run goes on.
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
 * Every reply is untrusted: its body is read as a stream and stopped at 4 MiB (`MAX_REPLY_BYTES`, http-exchange.ts;
 * a declared Content-Length over it is refused unread), a failure whose reason names the cap, not retried.
 *
 * The API key lives in a private field and is sent only in the Authorization header: no error, reason, stat or
 * thrown message contains it (reasons are fixed phrases; server error bodies are never echoed). The one quote is the
 * start of a model's answer that is not JSON (`replyExcerpt`): the counted reason names the first such answer, e.g.
 * `reply was not JSON, e.g. "I think the agent did well."`, and counts every later one under it.
 */
import type {
  Analyzer,
  AnalyzerGroup,
  AnalyzerOptions,
  AnalyzerStats,
  AnalyzerTrajectory,
  AnalysisResult,
  TrajectorySkills,
} from './types';
import { emptyStats } from './types';
import {
  DEFAULT_HTTP_PROMPT,
  STRICT_SUFFIX,
  renderPrompt,
  type GroupContext,
  type PromptEnv,
  type PromptTemplate,
} from './prompt';
import { DEFAULT_MAX_SKILL_CHARS, NOT_JSON, repairJson, replyExcerpt, stripThinking, validateSkills } from './repair';
import { finishFailure, httpFailure, readEnvelope, type Ctx, type Failure } from './http-reply';
import { exchange, networkFailure, redirectNote, sleep, tooLargeFailure, unreadableFailure } from './http-exchange';

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
  /**
   * Optional API key, sent as `Authorization: Bearer <key>`; surrounding whitespace is trimmed. Empty/absent = no
   * header.
   */
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
   * What the prompt says about the run's env (`{commands}`, `{examples}`, how observations are quoted): prompt.ts
   * `promptEnv(spec, preset)`. Default: nothing (no command list, no example).
   */
  env?: PromptEnv;
  /**
   * Base backoff (ms) before retrying 408/429/5xx/timeouts; doubles per retry, at most 30 s, but at least the
   * Retry-After the server asked for (a Retry-After longer than `timeoutMs` is not waited for: the trajectory fails).
   * Default 500.
   */
  retryDelayMs?: number;
  /** fetch implementation (tests, proxies). Default `globalThis.fetch`. */
  fetchImpl?: typeof fetch;
}

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
  private readonly o: Required<Omit<HttpAnalyzerOptions, 'apiKey' | 'fetchImpl' | 'failedOnly' | 'env'>> & {
    failedOnly: boolean;
  };
  private readonly env: PromptEnv;
  private readonly fetchFn: typeof fetch;
  private readonly s: AnalyzerStats = emptyStats();
  private active = 0;
  /** False once the server rejected `response_format` (HTTP 400): later requests ask for JSON in the prompt only. */
  private jsonMode = true;
  private readonly waiting: (() => void)[] = [];
  /** The counted reason of each failure that quotes a reply, fixed by its first excerpt (one entry per reason). */
  private readonly quoted: Record<string, string> = {};

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
      throw fail(
        'baseUrl',
        'is not a valid URL',
        'give the server root, e.g. http://localhost:11434 (Ollama) or https://api.openai.com',
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw fail('baseUrl', 'must start with http:// or https://', 'give the server root, e.g. http://localhost:11434');
    if (url.username || url.password)
      throw fail('baseUrl', 'must not contain a user name or password', 'put the key in the apiKey field');
    if (url.search || url.hash)
      throw fail(
        'baseUrl',
        'must not contain a query (?…) or fragment (#…)',
        'give only the server root, e.g. https://api.openai.com',
      );
    const path = url.pathname.replace(/\/+$/, '').replace(/(\/v1)?(\/chat\/completions)?$/, '');
    this.origin = url.origin;
    this.endpoint = `${url.origin}${path}/v1/chat/completions`;
    this.#apiKey = (opts.apiKey ?? '').trim();
    if (this.#apiKey && !/^[\x21-\x7e]+$/.test(this.#apiKey))
      throw fail(
        'apiKey',
        'contains spaces, line breaks or non-ASCII characters',
        'paste the key again without extra characters',
      );
    if (typeof opts.model !== 'string' || !opts.model.trim())
      throw fail('model', 'is empty', 'give the model name the server serves, e.g. qwen2.5:7b-instruct');
    this.o = {
      baseUrl: url.origin + path,
      model: opts.model.trim(),
      maxStepSkills: opts.maxStepSkills,
      failedOnly: opts.failedOnly ?? false,
      timeoutMs: opts.timeoutMs ?? 20_000,
      concurrency: opts.concurrency ?? 4,
      maxRetries: opts.maxRetries ?? 2,
      maxSkillChars: opts.maxSkillChars ?? DEFAULT_MAX_SKILL_CHARS,
      promptTemplate: opts.promptTemplate ?? DEFAULT_HTTP_PROMPT,
      retryDelayMs: opts.retryDelayMs ?? 500,
    };
    const o = this.o;
    if (!isInt(o.maxStepSkills, 0))
      throw fail(
        'maxStepSkills',
        `must be an integer ≥ 0, got ${o.maxStepSkills}`,
        'use 5 (the OPID paper for ALFWorld and WebShop) or 2 (search-QA)',
      );
    if (!(o.timeoutMs > 0 && Number.isFinite(o.timeoutMs)))
      throw fail('timeoutMs', `must be a positive number of ms, got ${o.timeoutMs}`, 'use 20000');
    if (!isInt(o.concurrency, 1)) throw fail('concurrency', `must be an integer ≥ 1, got ${o.concurrency}`, 'use 4');
    if (!isInt(o.maxRetries, 0)) throw fail('maxRetries', `must be an integer ≥ 0, got ${o.maxRetries}`, 'use 2');
    if (!isInt(o.maxSkillChars, 1))
      throw fail('maxSkillChars', `must be an integer ≥ 1, got ${o.maxSkillChars}`, 'use 200');
    if (!(o.retryDelayMs >= 0 && Number.isFinite(o.retryDelayMs)))
      throw fail('retryDelayMs', `must be a number ≥ 0, got ${o.retryDelayMs}`, 'use 500');
    this.env = opts.env ?? {};
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
    return Promise.all(group.trajectories.map((t, index) => this.analyzeOne(t, { group, index }, signal)));
  }

  /** Cumulative counters (a copy): calls = requests made, retries included; latencyMs = their summed duration. */
  stats(): AnalyzerStats {
    return { ...this.s, failureReasons: { ...this.s.failureReasons } };
  }

  private async analyzeOne(
    t: AnalyzerTrajectory,
    member: GroupContext,
    signal?: AbortSignal,
  ): Promise<TrajectorySkills | null> {
    if (this.o.failedOnly && t.success) return null;
    let strict = false;
    let last: Failure | undefined;
    for (let i = 0; i <= this.o.maxRetries; i++) {
      // Backoff capped at 30 s, but never shorter than the Retry-After the server asked for (at most timeoutMs, see
      // httpFailure).
      if (last?.retry === 'same')
        await sleep(
          Math.max(Math.min(MAX_RETRY_DELAY_MS, this.o.retryDelayMs * 2 ** (i - 1)), last.waitMs ?? 0),
          signal,
        );
      const r = await this.withSlot(() => this.attempt(t, member, strict, signal));
      if (r.ok) return r.skills;
      last = r;
      if (r.retry === 'no') break;
      if (r.retry === 'strict') strict = true;
    }
    const f = last!;
    const reason = f.excerpt === undefined ? f.reason : (this.quoted[f.reason] ??= `${f.reason}, e.g. ${f.excerpt}`);
    this.s.failures++;
    this.s.failureReasons[reason] = (this.s.failureReasons[reason] ?? 0) + 1;
    return null;
  }

  /**
   * One request (two when the server rejects JSON mode). Returns skills or a failure with its retry kind; throws only
   * when `signal` aborted.
   */
  private async attempt(
    t: AnalyzerTrajectory,
    member: GroupContext,
    strict: boolean,
    signal?: AbortSignal,
  ): Promise<Attempt> {
    signal?.throwIfAborted();
    const { model, maxStepSkills: K, maxSkillChars, timeoutMs } = this.o;
    const p = renderPrompt(this.o.promptTemplate, t, K, maxSkillChars, this.env, member);
    const messages = [
      { role: 'system', content: p.system },
      { role: 'user', content: p.user + (strict ? STRICT_SUFFIX : '') },
    ];
    const x = await exchange(
      {
        fetchFn: this.fetchFn,
        endpoint: this.endpoint,
        apiKey: this.#apiKey,
        model,
        timeoutMs,
        messages,
        jsonMode: this.jsonMode,
        signal,
      },
      this.s,
    );
    // the server said it has no JSON mode: the prompt alone asks for JSON from now on
    if (!x.jsonMode) this.jsonMode = false;
    if (x.kind === 'timeout') return { ok: false, reason: `timed out after ${timeoutMs} ms`, retry: 'same' };
    if (x.kind === 'error') return networkFailure(x.error, this.origin);
    if (x.kind === 'unreadable') return unreadableFailure(x.status, x.error);
    if (x.kind === 'too-large') return tooLargeFailure(x.status, x.error);
    const ctx = { model, timeoutMs, hasKey: !!this.#apiKey };
    if (!x.ok) return withRedirect(httpFailure(x.status, x.headers, x.text, ctx), x.redirectedTo);
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
    if (!j.ok)
      return {
        ok: false,
        reason: j.reason,
        retry: 'strict',
        ...(j.reason === NOT_JSON && { excerpt: replyExcerpt(th.text) }),
      };
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

/**
 * `f` with the redirect named first in its reason when the failing reply came through a redirect (`redirectNote`); a
 * redirect is not retried.
 */
function withRedirect(f: Failure, redirectedTo: string): Failure {
  if (!redirectedTo) return f;
  // httpFailure's reasons read `HTTP <status> (<words>)`: the note goes first inside the brackets.
  return {
    ok: false,
    reason: f.reason.replace(/^HTTP \d+ \(/, (head) => head + redirectNote(redirectedTo)),
    retry: 'no',
  };
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
 * rejected)", "timed out after 20000 ms", "connection refused at http://…", a bad base URL …). Never contains the
 * key.
 */
export type ConnectionResult = { ok: true; latencyMs: number; model: string } | { ok: false; reason: string };

/**
 * One minimal chat-completions request (JSON output asked for, temperature 0, as the analyzer sends; sent once more
 * without JSON mode when the server rejects it) to check the base URL, model and key before a run (test
 * connection). No other retries. OK only when the reply's message content, after any `<think>` block, holds a JSON
 * object (read as the analyzer reads its replies), so a reasoning model that answers only in `reasoning_content`, one
 * cut at max_tokens, or one answering in prose fails here with the reason the run would count (prose quoted).
 * `latencyMs` is the wall time of the request(s) in ms. Never throws: a bad base URL or model, an HTTP error, a
 * timeout, a refused connection and a reply that is not a usable chat completion all come back as `{ok: false,
 * reason}`.
 */
export async function testConnection(t: ConnectionTest): Promise<ConnectionResult> {
  let endpoint: string;
  try {
    endpoint = new HttpAnalyzer({
      baseUrl: t.baseUrl,
      model: t.model,
      apiKey: t.apiKey,
      timeoutMs: t.timeoutMs,
      maxStepSkills: 0,
    }).endpoint;
  } catch (e) {
    // The constructor's messages name the field, the rule and the fix, never the key or the raw URL.
    return { ok: false, reason: e instanceof Error ? e.message : 'the analyzer settings are not usable' };
  }
  const timeoutMs = t.timeoutMs ?? 20_000;
  const apiKey = (t.apiKey ?? '').trim();
  const model = t.model.trim();
  const impl = t.fetchImpl;
  const fetchFn: typeof fetch = impl
    ? (input, init) => impl(input, init)
    : (input, init) => globalThis.fetch(input, init);
  const counts = { calls: 0, latencyMs: 0 };
  const messages = [
    { role: 'user', content: 'Connection test. Reply with the JSON object {"ok": true} and nothing else.' },
  ];
  const x = await exchange({ fetchFn, endpoint, apiKey, model, timeoutMs, messages, jsonMode: true }, counts);
  if (x.kind === 'timeout') return { ok: false, reason: `timed out after ${timeoutMs} ms` };
  if (x.kind === 'error') return { ok: false, reason: networkFailure(x.error, new URL(endpoint).origin).reason };
  if (x.kind === 'unreadable') return { ok: false, reason: unreadableFailure(x.status, x.error).reason };
  if (x.kind === 'too-large') return { ok: false, reason: tooLargeFailure(x.status, x.error).reason };
  const ctx = { model, timeoutMs, hasKey: !!apiKey };
  if (!x.ok)
    return { ok: false, reason: withRedirect(httpFailure(x.status, x.headers, x.text, ctx), x.redirectedTo).reason };
  const e = readEnvelope(x.text, ctx);
  if (!e.ok) return { ok: false, reason: e.reason };
  const th = stripThinking(e.content);
  if (!th.ok) return { ok: false, reason: th.reason };
  const f = finishFailure(e.finish);
  if (f) return { ok: false, reason: f.reason };
  const j = repairJson(th.text);
  if (!j.ok)
    return {
      ok: false,
      reason:
        `${j.reason}: its message content began ${replyExcerpt(th.text)}; the server must answer the message ` +
        `content as a JSON object (here {"ok": true}), as the analyzer reads skills only from one`,
    };
  return { ok: true, latencyMs: counts.latencyMs, model: e.model || model };
}
