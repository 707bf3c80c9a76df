/**
 * Reading an OpenAI-compatible chat-completions reply for the `http` analyzer (http.ts): HTTP statuses in words with
 * the fix where the body tells the cause, Retry-After, an `error` object inside a 200 reply, the completion envelope
 * (content parts, `<think>` blocks, `reasoning_content`, a `data:` event stream sent although stream: false was
 * asked) and finish_reason. Server error bodies are matched, never echoed (they may quote the key).
 */

/** How a failed attempt is retried: not at all, with the same prompt after a backoff, or with the stricter prompt. */
export type Retry = 'no' | 'same' | 'strict';
/**
 * A failed attempt: a fixed-phrase reason (never server text), how to retry, a wait the server asked for (ms), and
 * for a model's answer that is not JSON the start of it (`replyExcerpt`, never a server error body), which the
 * counted reason quotes.
 */
export type Failure = { ok: false; reason: string; retry: Retry; waitMs?: number; excerpt?: string };

/** What the reply readers need to name a cause: the model asked for, the request limit (ms), whether a key was sent. */
export interface Ctx {
  model: string;
  timeoutMs: number;
  hasKey: boolean;
}

/** The reason when the server stopped at its output-token limit (finish_reason "length"). */
const CUT_AT_MAX_TOKENS =
  'reply cut at max_tokens (finish_reason "length"); raise max_tokens on the server (Ollama num_predict, llama.cpp -n)';
const NOT_COMPLETION = 'reply was not a chat completion (check the base URL)';

// Server error bodies are only matched against these, never echoed (they may quote the key).
export const JSON_MODE_REJECTED = /response_format|json_object|json_schema|json mode/i;
/** One case-insensitive pattern matching any of `alternatives` (each a regex of its own, joined with `|`). */
const anyOf = (...alternatives: RegExp[]) => new RegExp(alternatives.map((r) => r.source).join('|'), 'i');
const MODEL_MISSING = anyOf(
  /model_not_found|no endpoints found|try pulling/,
  /\bmodel\b[^\n]{0,60}?(not found|does not exist|doesn't exist|no such|unknown|not a valid|invalid)/,
  /(unknown|invalid|not a valid) model/,
);
const CONTEXT_EXCEEDED = anyOf(
  /context[ _](length|size|window)|maximum context|exceeds? the (available )?context/,
  /n_ctx|too many tokens|prompt is too long/,
);
const QUOTA = /insufficient_quota|exceeded your current quota|quota exceeded|out of credits|insufficient credits/i;

/**
 * A status in words, with the fix where the body tells the cause (a missing model, a prompt over the context window,
 * an exhausted quota, no key given), and whether it is retried (408, 429 and 5xx, except an exhausted quota).
 */
function statusWords(status: number, body: string, c: Ctx): { words: string; retry: Retry } {
  if ((status === 404 || status === 400) && MODEL_MISSING.test(body))
    return {
      words:
        `model "${c.model}" not found: check the name against the server's /v1/models list; with ` +
        `Ollama run "ollama pull ${c.model}"`,
      retry: 'no',
    };
  if ((status === 400 || status === 413) && CONTEXT_EXCEEDED.test(body))
    return {
      words:
        "prompt longer than the model's context window: raise the server's context size (llama.cpp -c, " +
        'Ollama num_ctx) or use a model with a longer context',
      retry: 'no',
    };
  if (status === 429 && QUOTA.test(body))
    return { words: 'quota exhausted: the account has no credit left; check its billing', retry: 'no' };
  if (status === 401 && !c.hasKey)
    return {
      words: 'API key missing: this server needs one; give it in the key field or OPD_ANALYZER_API_KEY',
      retry: 'no',
    };
  const words: Record<number, string> = {
    400: 'request rejected: the server may not support this model or JSON output',
    401: 'API key rejected',
    402: 'payment required: the account has no credit left',
    403: 'access denied: the key lacks access to this model, or a proxy blocks the request',
    404: 'not found: check the base URL and model name',
    408: 'server timed out',
    413: 'prompt too large',
    429: 'rate limited',
    502: 'bad gateway: a proxy got no answer from the model server; is it running?',
    503: 'server unavailable: overloaded or still loading the model',
    504: 'gateway timeout: a proxy gave up waiting for the model server',
  };
  const retry: Retry = status === 408 || status === 429 || status >= 500 ? 'same' : 'no';
  return { words: words[status] ?? (status >= 500 ? 'server error' : 'request rejected'), retry };
}

/**
 * A non-2xx reply in words (`statusWords`). A Retry-After (or OpenAI's retry-after-ms) is honoured when it fits in the
 * request limit; a longer one is not waited for and the trajectory fails at once, the wait named in the reason.
 */
export function httpFailure(status: number, headers: Headers, body: string, c: Ctx): Failure {
  const w = statusWords(status, body, c);
  const waitMs = retryAfterMs(headers);
  if (w.retry === 'same' && waitMs > c.timeoutMs)
    return {
      ok: false,
      reason:
        `HTTP ${status} (${w.words}; the server asks to wait ${Math.ceil(waitMs / 1000)} s, longer ` +
        `than the ${c.timeoutMs} ms timeout; retry later)`,
      retry: 'no',
    };
  return { ok: false, reason: `HTTP ${status} (${w.words})`, retry: w.retry, waitMs };
}

/**
 * The wait a reply asks for (ms): `retry-after-ms`, else `Retry-After` (seconds or an HTTP date); 0 when absent or
 * unreadable.
 */
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
export function errorInReply(err: unknown, c: Ctx): Failure {
  const e = typeof err === 'object' && err !== null ? (err as Record<string, unknown>) : {};
  const text = [typeof err === 'string' ? err : '', e.message, e.code, e.type]
    .filter((v) => typeof v === 'string')
    .join(' ');
  const n = Number(e.code ?? e.status);
  const code = Number.isInteger(n) && n >= 400 && n < 600 ? n : 0;
  const guess =
    code ||
    (MODEL_MISSING.test(text)
      ? 404
      : QUOTA.test(text)
        ? 429
        : /api[ _-]?key|unauthori[sz]ed|authentication/i.test(text)
          ? 401
          : 500);
  const w = statusWords(guess, text, c);
  const id = [e.code, e.type].find((v): v is string => typeof v === 'string' && /^[A-Za-z][\w.-]{0,39}$/.test(v));
  return {
    ok: false,
    reason: `error inside a 200 reply (${code ? `code ${code}: ` : id ? `${id}: ` : ''}${w.words})`,
    retry: w.retry,
  };
}

/**
 * A chat completion's answer: message content (text parts joined), finish_reason ('' when absent), served model name.
 */
export type Envelope = { ok: true; content: string; finish: string; model: string } | Failure;
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
    else if ((type === undefined || type === 'text' || type === 'output_text') && typeof part?.text === 'string')
      text += part.text;
  }
  return { text, thinking };
}

/**
 * A `data:` event stream (sent although stream: false was asked) folded into one completion; undefined when unreadable.
 */
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
  const choices =
    content || reasoning || error == null
      ? [{ message: { content, reasoning_content: reasoning }, finish_reason: finish }]
      : [];
  return { model, choices, ...(error != null ? { error } : {}) };
}

/**
 * A 2xx body → the first choice's answer, or why there is none: empty, HTML, not JSON, an event stream that could not
 * be read, an error object, no choices, no content, or content only in a reasoning field (`reasoning_content`,
 * `reasoning`, `thinking`: a thinking model whose answer never reached the content).
 */
export function readEnvelope(text: string, c: Ctx): Envelope {
  const body = text.replace(/^\uFEFF/, '').trim();
  if (!body) return { ok: false, reason: 'reply was empty', retry: 'strict' };
  let env: unknown;
  if (/^data:/m.test(body) && /^(data|event|id|retry):|^:/.test(body)) {
    env = fromEventStream(body);
    if (!env)
      return {
        ok: false,
        reason: 'reply was an event stream (data: lines) that held no chat completion (check the base URL)',
        retry: 'same',
      };
  } else {
    try {
      env = JSON.parse(body);
    } catch {
      if (/^<(!doctype|html|head|body)/i.test(body) || /<html[\s>]/i.test(body.slice(0, 1000)))
        return {
          ok: false,
          reason:
            'reply was an HTML page, not a chat completion (check the base URL: give the API root, e.g. ' +
            'http://localhost:11434)',
          retry: 'same',
        };
      return { ok: false, reason: NOT_COMPLETION, retry: 'same' };
    }
  }
  if (typeof env !== 'object' || env === null || Array.isArray(env))
    return { ok: false, reason: NOT_COMPLETION, retry: 'same' };
  const o = env as Record<string, unknown>;
  const choices = o.choices;
  if (!Array.isArray(choices) || !choices.length) {
    if (o.error != null) return errorInReply(o.error, c);
    if (!Array.isArray(choices))
      return {
        ok: false,
        reason: 'reply was JSON without "choices", not a chat completion (check the base URL)',
        retry: 'same',
      };
    return { ok: false, reason: 'reply had no choices (the server returned an empty completion)', retry: 'same' };
  }
  const ch = (choices[0] ?? {}) as Record<string, unknown>;
  const finish = typeof ch.finish_reason === 'string' ? ch.finish_reason : '';
  if (ch.error != null || finish === 'error') return errorInReply(ch.error ?? o.error, c);
  const msg = (ch.message ?? ch.delta ?? {}) as Record<string, unknown>;
  const got =
    contentText(msg.content) ?? (typeof ch.text === 'string' ? { text: ch.text, thinking: false } : undefined);
  if (got?.text.trim())
    return { ok: true, content: got.text, finish, model: typeof o.model === 'string' ? o.model : '' };
  const field =
    REASONING_FIELDS.find((k) => typeof msg[k] === 'string' && (msg[k] as string).trim()) ??
    (got?.thinking ? 'thinking parts of the content' : '');
  if (field && finish === 'length')
    return {
      ok: false,
      reason:
        `reply cut at max_tokens while the model was still reasoning (${field}), before any answer; ` +
        `raise max_tokens or use a non-reasoning model`,
      retry: 'no',
    };
  if (field)
    return {
      ok: false,
      reason:
        `the model answered only in ${field}, its message content was empty; use a non-reasoning ` +
        `model, turn thinking off (Qwen3: /no_think; vLLM, llama.cpp: enable_thinking=false; ` +
        `Ollama: think=false) or raise max_tokens`,
      retry: 'no',
    };
  if (typeof msg.refusal === 'string' && msg.refusal.trim())
    return {
      ok: false,
      reason: 'the model refused to answer (message.refusal); check the prompt template',
      retry: 'no',
    };
  const f = finishFailure(finish);
  if (f) return f;
  return { ok: false, reason: got ? 'reply was empty' : 'reply had no message content', retry: 'strict' };
}

/** A finish_reason that makes the content unusable: cut at the token limit, or blocked by a content filter. */
export function finishFailure(finish: string): Failure | undefined {
  if (finish === 'length') return { ok: false, reason: CUT_AT_MAX_TOKENS, retry: 'no' };
  if (finish === 'content_filter')
    return {
      ok: false,
      reason: 'reply blocked by the server\'s content filter (finish_reason "content_filter")',
      retry: 'no',
    };
  return undefined;
}
