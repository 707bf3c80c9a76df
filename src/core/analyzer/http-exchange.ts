/**
 * One chat-completions POST of the `http` analyzer (http.ts), bounded by a timeout covering the whole reply and by a
 * byte cap on its body (`MAX_REPLY_BYTES`), with a resend without JSON mode when the server rejects it, and a rejected
 * fetch in words.
 */
import { MIB, ReadCapError, readCappedText, sizeWords } from '../read-capped';
import { JSON_MODE_REJECTED, type Failure } from './http-reply';

/**
 * The most bytes of one reply body read (4 MiB): a chat completion with a trajectory's skills is a few KiB, so this
 * only stops a wrong URL (a file server) or a hostile server streaming without end, before it fills memory.
 */
export const MAX_REPLY_BYTES = 4 * MIB;

/** One request's outcome; `jsonMode` says whether JSON mode was still on when it ended. */
export type Exchange =
  // `redirectedTo`: the final URL's origin and path ('' when not redirected; fetch follows redirects itself).
  (
    | { kind: 'reply'; ok: boolean; status: number; headers: Headers; text: string; redirectedTo: string }
    | { kind: 'timeout' }
    // The fetch itself was rejected (no reply).
    | { kind: 'error'; error: unknown }
    // The status and headers came, the body could not be read (a broken compressed body, a connection dropped
    // mid-reply).
    | { kind: 'unreadable'; status: number; error: unknown }
    // The body passed MAX_REPLY_BYTES (or its Content-Length declared more): stopped, the connection closed.
    | { kind: 'too-large'; status: number; error: ReadCapError }
  ) & { jsonMode: boolean };

export interface ExchangeRequest {
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
export async function exchange(r: ExchangeRequest, counts: { calls: number; latencyMs: number }): Promise<Exchange> {
  const x = await post(r, r.jsonMode, counts);
  if (r.jsonMode && x.kind === 'reply' && x.status === 400 && JSON_MODE_REJECTED.test(x.text))
    return { ...(await post(r, false, counts)), jsonMode: false };
  return { ...x, jsonMode: r.jsonMode };
}

/** One POST bounded by `r.timeoutMs` (body included); counts it in `counts`. Throws only the signal's reason. */
async function post(r: ExchangeRequest, jsonMode: boolean, counts: { calls: number; latencyMs: number }) {
  r.signal?.throwIfAborted();
  const body = JSON.stringify({
    model: r.model,
    temperature: 0,
    stream: false,
    ...(jsonMode ? { response_format: { type: 'json_object' } } : {}),
    messages: r.messages,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (r.apiKey) headers.authorization = `Bearer ${r.apiKey}`;
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, r.timeoutMs);
  const onAbort = () => ctl.abort();
  r.signal?.addEventListener('abort', onAbort, { once: true });
  const t0 = performance.now();
  counts.calls++;
  try {
    const res = await r.fetchFn(r.endpoint, { method: 'POST', headers, body, signal: ctl.signal });
    let text: string;
    try {
      // inside the timer: a server that stalls mid-body also times out
      text = await readCappedText(res, MAX_REPLY_BYTES, `analyzer reply (HTTP ${res.status})`);
    } catch (e) {
      if (r.signal?.aborted) throw r.signal.reason;
      if (timedOut) return { kind: 'timeout' as const };
      if (e instanceof ReadCapError) {
        ctl.abort(); // the stream is cancelled already; make sure the request is torn down too
        return { kind: 'too-large' as const, status: res.status, error: e };
      }
      return { kind: 'unreadable' as const, status: res.status, error: e };
    }
    const redirectedTo =
      res.redirected && URL.canParse(res.url) ? ((u) => u.origin + u.pathname)(new URL(res.url)) : '';
    return { kind: 'reply' as const, ok: res.ok, status: res.status, headers: res.headers, text, redirectedTo };
  } catch (e) {
    if (r.signal?.aborted) throw r.signal.reason;
    return timedOut ? { kind: 'timeout' as const } : { kind: 'error' as const, error: e };
  } finally {
    clearTimeout(timer);
    r.signal?.removeEventListener('abort', onAbort);
    counts.latencyMs += performance.now() - t0;
  }
}

/**
 * A rejected fetch in words. Node (undici) puts the system error code on `cause`; browsers say only "Failed to fetch".
 */
export function networkFailure(e: unknown, origin: string): Failure {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  if (code === 'ECONNREFUSED')
    return { ok: false, reason: `connection refused at ${origin} (is the server running?)`, retry: 'no' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { ok: false, reason: `host not found: ${new URL(origin).hostname}`, retry: 'no' };
  if (/CERT|SSL|TLS/.test(code)) return { ok: false, reason: `TLS certificate problem at ${origin}`, retry: 'no' };
  if (cause?.message === 'bad port')
    return { ok: false, reason: `port blocked by fetch at ${origin} (use another port)`, retry: 'no' };
  if (code === 'ECONNRESET' || code.startsWith('UND_ERR'))
    return { ok: false, reason: `connection dropped by ${origin}`, retry: 'same' };
  return { ok: false, reason: `could not reach ${origin} (server down, wrong URL, or blocked by CORS)`, retry: 'same' };
}

/**
 * An error's own code when it looks like one (`Z_DATA_ERROR`, `UND_ERR_SOCKET`, `ERR_…`), else ''; never free text.
 */
function errorCode(e: unknown): string {
  const pick = (x: unknown) => (typeof x === 'string' && /^[A-Z][A-Z0-9_]{1,39}$/.test(x) ? x : '');
  const o = (e ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return pick(o.code) || pick(o.cause?.code);
}

/**
 * A reply whose status and headers came but whose body could not be read, in words: most often a compressed body
 * (content-encoding gzip/br/deflate) that does not decompress, or a connection dropped mid-reply. Retried with the
 * same prompt. The reason carries the status and the error's code, never its message.
 */
export function unreadableFailure(status: number, e: unknown): Failure {
  const code = errorCode(e);
  return {
    ok: false,
    reason:
      `reply body unreadable after HTTP ${status}${code ? ` (${code})` : ''}: a compressed body ` +
      `that does not decompress, or the connection dropped mid-reply; check a proxy's ` +
      `content-encoding`,
    retry: 'same',
  };
}

/**
 * A reply body over its cap in words: the status, the cap, whether it was refused from its Content-Length or stopped
 * mid-read, and what to check. A fixed phrase per cap and case (the bytes read vary by chunk, so they stay out of it,
 * and failures count under one reason). Not retried: the same server would send the same flood.
 */
export function tooLargeFailure(status: number, e: ReadCapError): Failure {
  const how =
    e.declared !== undefined && e.read === 0
      ? `its Content-Length declares ${sizeWords(e.declared)}, so none of it was read`
      : 'stopped reading there and closed the connection';
  return {
    ok: false,
    reason:
      `reply body after HTTP ${status} over the ${sizeWords(e.cap)} cap: ${how}; a chat completion is a few ` +
      `KiB, so check that the base URL is an OpenAI-compatible server`,
    retry: 'no',
  };
}

/**
 * The reason prefix for an HTTP error reached through a redirect: fetch follows a 301/302/303 by re-sending the POST
 * as a GET, so the server at the end of it answers an error that says nothing of the redirect. '' when not redirected.
 */
export function redirectNote(redirectedTo: string): string {
  return redirectedTo
    ? `after a redirect to ${redirectedTo}, which fetch re-sends as GET: use that address's server root ` +
        `as the base URL; `
    : '';
}

/** Wait `ms`, rejecting with the signal's reason if it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
