/**
 * The HTTP plumbing of `npm run serve` (cli/serve.ts) on `node:http`: a route table, request bodies read with a byte
 * cap, every request body checked with a zod schema, and every refusal as JSON naming the field and the fix.
 *
 * Every request is untrusted: a body is read as a stream and kept up to its route's cap; one over it (declared by
 * Content-Length or counted) is refused with 413, answered once the rest has been read and dropped (within the body
 * timeout: closing a connection with bytes unread resets it, and a client that sends its whole body before reading,
 * as Python's http.client, would get a broken pipe instead of the 413). A body must be JSON (400 naming the position
 * of the syntax error otherwise), and its fields are checked against the route's schema (400 naming the first bad
 * field, what it takes and an example body); a body whose encoding node's parser breaks off (a bad chunk-size line,
 * a size past 2^64 − 1) is a 400 naming the encoding. node's parser does not hand a chunk's declared size to
 * JavaScript, only the chunk's bytes as they arrive: a chunk declared over the cap (`FFFFFFFFFFFFFFFF`) is refused
 * with 413 once the bytes received pass the cap, and with 408 when they stop coming, as any body. Query parameters
 * are read with URLSearchParams. Nothing here logs a body or a header.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { z } from 'zod';
import { nearestName } from '../../src/core/near';

/** A refusal: the HTTP status and the message sent as `{"error": message}` (or in the route's own error shape). */
export class HttpError extends Error {
  /**
   * @param status the HTTP status.
   * @param message the refusal in words: what was wrong and the fix.
   * @param code a machine-readable code for the OpenAI-compatible routes (`model_not_found`); absent elsewhere.
   * @param param the request field the refusal is about (`model`, `messages`), OpenAI's `param`; absent when none is.
   */
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** What a route handler gets: the parsed URL and, for POST routes, the body text (already under the cap). */
export interface RouteRequest {
  url: URL;
  body: string;
}

/** A route: answers a JSON value (status 200) or throws HttpError. */
export interface Route {
  /** Largest body accepted (bytes); GET routes read none. */
  maxBody: number;
  handle(req: RouteRequest): unknown | Promise<unknown>;
  /** How a refusal is written (default `{"error": message}`); the OpenAI-compatible routes use OpenAI's shape. */
  errorBody?(e: HttpError): unknown;
}

/**
 * Routes by `METHOD /path`, e.g. `POST /step`. A key ending in `/*` (`GET /v1/models/*`) takes every path one
 * segment below its prefix (`/v1/models/x`); an exact key wins over it. The handler reads the segment from
 * `req.url.pathname`.
 */
export type RouteTable = Record<string, Route>;

/**
 * The route table's key for a request: `METHOD path` when the table holds it, else the `METHOD prefix/*` key that
 * takes a path one segment below `prefix`, else undefined.
 * @param routes the table; @param method `GET`, `POST`, …; @param path the URL's pathname (`/v1/models/x`).
 */
export function routeKey(routes: RouteTable, method: string, path: string): string | undefined {
  const exact = `${method} ${path}`;
  if (Object.hasOwn(routes, exact)) return exact;
  const cut = path.lastIndexOf('/');
  const wild = `${method} ${path.slice(0, cut)}/*`;
  return cut > 0 && cut < path.length - 1 && Object.hasOwn(routes, wild) ? wild : undefined;
}

/**
 * Called once per request answered or refused (for `--log`): method, path, status, milliseconds, and, when the client
 * could not hear the answer (it closed the connection, or its socket was gone when the refusal came), `unheard`: the
 * refusal's message (the route, what was wrong; never a body or a header).
 */
export type OnDone = (method: string, path: string, status: number, ms: number, unheard?: string) => void;

/** Write `value` as a JSON reply with `status`. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Sizes in words for messages: `1 MiB`, `512 KiB`, `100 bytes`. */
export function sizeWords(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** How long a request body may take to arrive in full (ms) before the request is refused with 408. */
export const BODY_TIMEOUT_MS = 10_000;

/**
 * Status logged for a request whose client closed the connection before its body arrived (nginx's convention; the
 * client hears nothing).
 */
export const CLIENT_CLOSED = 499;

/**
 * The body of `req` as UTF-8 text, at most `max` bytes (`route` names the route in the refusal), arriving within
 * `timeoutMs`.
 * @throws HttpError 413 when a declared Content-Length or the bytes received exceed `max`, once the rest of the body
 *   has been read and dropped or `timeoutMs` has passed since (nothing over `max` is kept); 408 when the body has not
 *   arrived within `timeoutMs`; CLIENT_CLOSED (499) when the connection closed first (the client went away; a malformed
 *   chunk is answered 400 first by `Listeners.clientError`, and this one is dropped).
 */
export function readBody(
  req: IncomingMessage,
  max: number,
  route: string,
  timeoutMs = BODY_TIMEOUT_MS,
): Promise<string> {
  const declared = Number(req.headers['content-length']);
  const over = () =>
    new HttpError(413, `${route}: the request body is over ${sizeWords(max)}, the most this route takes; send less`);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    /** Over the cap: what comes is read and dropped until the body ends (at most timeoutMs more), then refused. */
    let dropping = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = (e: HttpError) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.resume(); // drain without keeping it
      reject(e);
    };
    const overflow = () => {
      dropping = true;
      chunks.length = 0;
      clearTimeout(timer);
      timer = setTimeout(() => stop(over()), timeoutMs);
    };
    const onData = (c: Buffer) => {
      if (dropping) return;
      size += c.length;
      if (size > max) overflow();
      else chunks.push(c);
    };
    const onEnd = () => {
      clearTimeout(timer);
      if (dropping) reject(over());
      else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    if (Number.isFinite(declared) && declared > max) overflow();
    else
      timer = setTimeout(
        () =>
          stop(
            new HttpError(
              408,
              `${route}: the request body did not arrive within ${timeoutMs / 1000} s (${size} bytes came` +
                `${Number.isFinite(declared) ? ` of the ${declared} declared` : ''}); send the whole body at once`,
            ),
          ),
        timeoutMs,
      );
    req.on('data', onData);
    req.on('end', onEnd);
    // A closed connection (or one whose malformed body clientError answered already): nobody hears this answer.
    req.on('error', () =>
      stop(new HttpError(CLIENT_CLOSED, `${route}: the client closed the connection before the body arrived`)),
    );
  });
}

/** A value in a few words for an error message: its JSON, cut to 40 characters, or its type. */
function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  const json = JSON.stringify(v) ?? typeof v;
  return json.length > 40 ? `${json.slice(0, 39)}…` : json;
}

/** A value sent as a bad field, in words: a long text by its length, a long array by its count, else `shown`. */
function sent(v: unknown): string {
  if (typeof v === 'string' && v.length > 40) return `a text of ${v.length} characters`;
  if (Array.isArray(v) && JSON.stringify(v).length > 40) return `an array of ${v.length} items`;
  return shown(v);
}

/** What kind of JSON value `v` is, for an item's message: `a number`, `a string`, `an object`. */
function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : 'a string';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** The value at `path` in `v`, looked up as own properties; `found` false when a step of it is missing. */
function valueAt(v: unknown, path: readonly PropertyKey[]): { found: boolean; value?: unknown } {
  let at = v;
  for (const k of path) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, k)) return { found: false };
    at = (at as Record<PropertyKey, unknown>)[k];
  }
  return { found: true, value: at };
}

/**
 * How deep a request body may nest arrays and objects. The deepest body a route reads is a chat message's content
 * part (`{"messages": [{"content": [{"type": "text", …}]}]}`, depth 4); JSON.parse of a body nested millions deep
 * takes seconds of the server's one thread (3.5 s for 6 MB), so depth is checked first, in one pass.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Where `text` (JSON or not) first opens an array or object `max + 1` deep, outside strings (a backslash escapes the
 * next character), as a 0-based character index; -1 when it never does. Linear in `text.length`.
 */
export function nestingPast(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** How `parseBody` reads and explains one route's body. */
export interface BodyRules {
  /**
   * Per field, what it takes in words (`an integer ≥ 0, the id POST /create answered`); `field[]` names what each
   * item of an array field takes (`queries[]`: `a string of at most 1000 characters`), `field[].key` a key of each
   * item (`messages[].role`). A nested field with no entry is refused with the schema's own words.
   */
  what: Readonly<Record<string, string>>;
  /** A body the route accepts, shown as the fix (unless `exampleFor` is given). */
  example?: unknown;
  /**
   * The fix for the body sent instead of `example`, when the route can do better with what was sent (`POST /step`:
   * an action of the env `env_idx` names): given the body as an object after the aliases are copied (undefined when
   * it is not JSON or not an object), the example body and a note written after it (e.g. whose action it is).
   * Called only for a refused body.
   */
  exampleFor?: (body: Readonly<Record<string, unknown>> | undefined) => { example: unknown; note?: string };
  /** Other names a field may be sent under (`{id: 'env_idx'}`): used when the field itself is absent. */
  aliases?: Readonly<Record<string, string>>;
}

/** `send e.g. <example body>` for a refused body (`BodyRules.exampleFor`'s, with its note, when the route has one). */
function fixText(rules: BodyRules, body: Readonly<Record<string, unknown>> | undefined): string {
  const e = rules.exampleFor ? rules.exampleFor(body) : { example: rules.example };
  return `send e.g. ${JSON.stringify(e.example)}${e.note ? ` ${e.note}` : ''}`;
}

/**
 * A field of `obj` the route does not read that is a near miss of one it reads and that `obj` lacks (`Env` for `env`,
 * `presets` for `preset`; core/near.ts `nearestName`), or that starts with the name of one (of 3 letters or more) that
 * `obj` lacks (`env_name`, `environment` for `env`), or null. Other unknown fields are ignored, as clients written for
 * other servers send their own.
 */
function misspeltField(obj: Record<string, unknown>, rules: BodyRules): { sent: string; meant: string } | null {
  const known = Object.keys(rules.what).filter((k) => !k.includes('['));
  const aliases = Object.keys(rules.aliases ?? {});
  for (const sent of Object.keys(obj)) {
    if (known.includes(sent) || aliases.includes(sent)) continue;
    const lower = sent.toLowerCase();
    const meant = nearestName(sent, known) ?? known.find((k) => k.length >= 3 && lower.startsWith(k)) ?? null;
    if (meant !== null && !Object.hasOwn(obj, meant)) return { sent, meant };
  }
  return null;
}

/**
 * Parse a JSON request body against `schema`, after copying each alias to its field when the field is absent (own
 * properties only).
 * @param route `POST /step`, for messages.
 * @throws HttpError 400 naming a body nested past MAX_BODY_DEPTH, the syntax error, a body that is not an object, a
 *   misspelt field (`misspeltField`, with the one meant), or the first bad field with what it takes, what was sent
 *   and the example (the field, e.g. `model` or `messages[0].role`, as the error's `param`).
 */
export function parseBody<T>(route: string, text: string, schema: z.ZodType<T>, rules: BodyRules): T {
  const deep = nestingPast(text, MAX_BODY_DEPTH);
  if (deep >= 0)
    throw new HttpError(
      400,
      `${route}: the body nests arrays and objects more than ${MAX_BODY_DEPTH} deep (at character ${deep}); ` +
        `${fixText(rules, undefined)}`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, '')); // a byte order mark may be ignored (RFC 8259 §8.1)
  } catch (e) {
    const why = e instanceof Error ? e.message : 'not JSON';
    throw new HttpError(400, `${route}: the body is not JSON (${why}); ${fixText(rules, undefined)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError(
      400,
      `${route}: the body must be a JSON object, got ${shown(value)}; ${fixText(rules, undefined)}`,
    );
  const obj: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [alias, field] of Object.entries(rules.aliases ?? {}))
    if (!Object.hasOwn(obj, field) && Object.hasOwn(obj, alias)) obj[field] = obj[alias];
  const misspelt = misspeltField(obj, rules);
  if (misspelt)
    throw new HttpError(
      400,
      `${route}: field "${misspelt.sent}" is not one this route reads; did you mean "${misspelt.meant}" ` +
        `(${rules.what[misspelt.meant]})? ${fixText(rules, obj)}`,
      undefined,
      misspelt.sent,
    );
  const r = schema.safeParse(obj);
  if (r.success) return r.data;
  const fix = fixText(rules, obj);
  const issue = r.error.issues[0];
  const field = issue.path.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`)).join('');
  const top = String(issue.path[0] ?? '');
  // a nested field by its pattern (`messages[].role`), an array's item (`queries[]`)
  const pattern = issue.path.map((k, i) => (typeof k === 'number' ? '[]' : `${i ? '.' : ''}${String(k)}`)).join('');
  if (issue.path.length > 1 && Object.hasOwn(rules.what, pattern)) {
    const at = valueAt(obj, issue.path);
    const msg = at.found
      ? `field "${field}" must be ${rules.what[pattern]}, got ${kind(at.value)}`
      : `field "${field}" is missing (${rules.what[pattern]})`;
    throw new HttpError(400, `${route}: ${msg}; ${fix}`, undefined, field);
  }
  const takes = Object.hasOwn(rules.what, top) ? rules.what[top] : issue.message;
  const msg =
    issue.path.length > 1
      ? `field "${field}" is not valid (${issue.message})`
      : !Object.hasOwn(obj, top)
        ? `field "${field}" is missing (${takes})`
        : `field "${field}" must be ${takes}, got ${sent(obj[top])}`;
  throw new HttpError(400, `${route}: ${msg}; ${fix}`, undefined, field);
}

/**
 * A non-negative integer query parameter (`env_idx` of `GET /observation?env_idx=3`), sent under one of `names` (the
 * first is its name, the others aliases).
 * @throws HttpError 400 naming the parameter when it is missing, sent more than once (under one name or several:
 *   which one was meant cannot be told), or not such an integer.
 */
export function intParam(url: URL, names: readonly string[], route: string): number {
  const sentAs = [...url.searchParams].filter(([k]) => names.includes(k));
  if (sentAs.length > 1) {
    const all = sentAs.map(([k, v]) => `${k}=${shown(v)}`).join(', ');
    throw new HttpError(
      400,
      `${route}: query parameter "${names[0]}" is sent ${sentAs.length} times (${all}); send it once, e.g. ` +
        `${route}?${names[0]}=0`,
    );
  }
  const name = names.find((n) => url.searchParams.has(n));
  const raw = name === undefined ? null : url.searchParams.get(name);
  if (raw === null)
    throw new HttpError(400, `${route}: query parameter "${names[0]}" is missing; send e.g. ${route}?${names[0]}=0`);
  if (!/^\d{1,15}$/.test(raw))
    throw new HttpError(
      400,
      `${route}: query parameter "${name}" must be an integer ≥ 0 (an id POST /create answered), got ${shown(raw)}`,
    );
  return Number(raw);
}

/** A request being answered, by its socket: how to answer it once, for `clientError`. */
interface InFlight {
  req: IncomingMessage;
  res: ServerResponse;
  /** `POST /step`, for messages. */
  key: string;
  answered: boolean;
  /** Answer the refusal `e` (the route's error shape) and close the connection; nothing once answered. */
  refuse(e: HttpError): void;
}

/** What `listener` gives node:http: the `request` listener and the `clientError` listener. */
export interface Listeners {
  request(req: IncomingMessage, res: ServerResponse): void;
  /**
   * node:http's `clientError`: the parser broke off the connection's bytes. A request whose body was being read (a
   * malformed chunk: a bad chunk-size line, a missing CRLF) is answered 400 naming the body's encoding and the fix,
   * in its route's error shape, and logged as 400 (with the message as `unheard` when the socket can no longer be
   * written: nothing is sent then); with no request waiting for its body (a malformed head, or
   * both Content-Length and Transfer-Encoding), the error is answered as node answers it (431 headers too large,
   * 413 chunk extensions too large, 408 timeout, else 400), as JSON, naming the route and in its error shape when
   * the bytes read hold the request's line and it names a route.
   */
  clientError(err: Error & { code?: string }, socket: Duplex): void;
}

/** The 400 for a request body node's parser broke off (`err`, an `HPE_*` error), naming the encoding and the fix. */
function badBodyEncoding(key: string, req: IncomingMessage, err: Error & { code?: string }): HttpError {
  const chunked = /chunked/i.test(String(req.headers['transfer-encoding'] ?? ''));
  const what = chunked ? 'is not valid chunked encoding' : 'could not be read';
  return new HttpError(
    400,
    `${key}: the request body ${what} (${err.message}, ${err.code}); send the body with a Content-Length, or as ` +
      'chunks of "<size in hex>\\r\\n<bytes>\\r\\n" ending with "0\\r\\n\\r\\n"',
  );
}

/** A parse error of node's HTTP parser: its code and, for a request's bytes, the bytes read and where it stopped. */
type ParseError = Error & { code?: string; rawPacket?: unknown; bytesParsed?: number };

/**
 * The method and path of the request whose head node's parser broke off: the last request line in the bytes it had
 * read up to the error (`rawPacket` up to `bytesParsed`), the path without its query; null when those bytes hold
 * none (a head split across reads, or bytes that are not HTTP).
 */
export function headOf(err: ParseError): { method: string; path: string } | null {
  if (!Buffer.isBuffer(err.rawPacket)) return null;
  const text = err.rawPacket.subarray(0, err.bytesParsed ?? err.rawPacket.length).toString('latin1');
  const line = [...text.matchAll(/(?:^|\n)([A-Z]+) (\S+) HTTP\/1\.[01]\r?\n/g)].at(-1);
  if (!line) return null;
  try {
    return { method: line[1], path: requestUrl(line[2]).pathname };
  } catch {
    return null;
  }
}

/**
 * The answer to a connection's parse error with no request waiting (see `Listeners.clientError`): node's status for
 * the error as JSON; when the broken request's line names a route (`headOf`), the refusal names the route, is in its
 * error shape and is logged (`onDone`), as every other refusal of that route. A request with both Content-Length and
 * Transfer-Encoding (which node refuses, as RFC 9112 §6.1 allows) gets the fix: send one of them. When the socket can
 * no longer be written, nothing is sent: a refusal of a route is still logged, with its message as `unheard`. It
 * carries the CORS header every answer carries, so a page that sent the request can read the refusal.
 */
function answerBadConnection(err: ParseError, socket: Duplex, routes: RouteTable, onDone?: OnDone): void {
  if (err.code === 'ECONNRESET') return void socket.destroy();
  const statuses: Record<string, [number, string]> = {
    HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
    HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large'],
    ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
  };
  const [status, reason] = statuses[err.code ?? ''] ?? [400, 'Bad Request'];
  const head = headOf(err);
  const key = head && `${head.method} ${head.path}`;
  const found = head ? routeKey(routes, head.method, head.path) : undefined;
  const route = found === undefined ? undefined : routes[found];
  const both = /Content-Length/.test(err.message) && /Transfer-Encoding/.test(err.message);
  const fix = both ? '; send the body with a Content-Length or with Transfer-Encoding: chunked, not both' : '';
  const message = `the request is not valid HTTP/1.1 (${err.message}, ${err.code ?? 'no code'})${fix}`;
  const gone = !socket.writable;
  let value: unknown = { error: message };
  if (route && head) {
    const e = new HttpError(status, `${key}: ${message}`);
    value = route.errorBody ? route.errorBody(e) : { error: e.message };
    onDone?.(head.method, head.path, status, 0, gone ? e.message : undefined);
  }
  if (gone) return void socket.destroy();
  const text = JSON.stringify(value);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nAccess-Control-Allow-Origin: *\r\n` +
      `Connection: close\r\n\r\n${text}`,
  );
}

/**
 * A request target as a URL: the origin form (`/path?query`) read as a path even when it starts with `//` (which the
 * URL parser would take for a host: `//health` is no route, not `/`), the absolute form as it is.
 */
function requestUrl(target: string): URL {
  return target.startsWith('/') ? new URL(`http://localhost${target}`) : new URL(target, 'http://localhost');
}

/**
 * How a refusal of a path no route takes is written: the `errorBody` of a route under the same first segment (a
 * wrong path under `/v1/`, or `/v1` itself, gets OpenAI's error shape, as the `/v1` routes' refusals), else undefined
 * (`{"error": …}`).
 */
function familyErrorBody(routes: RouteTable, path: string): Route['errorBody'] | undefined {
  const first = (p: string) => /^\/[^/]*\//.exec(p)?.[0];
  const family = first(path.endsWith('/') ? path : `${path}/`);
  if (family === undefined) return undefined;
  for (const [k, r] of Object.entries(routes)) if (r.errorBody && first(k.split(' ')[1]) === family) return r.errorBody;
  return undefined;
}

/**
 * `did you mean POST /create? ` for a path no route takes that is a near miss of one (core/near.ts `nearestName`
 * on the path without its trailing slashes: another case, `-` for `_`, one edit, a prefix of only one), with a
 * method the route takes (`method` when it is one); empty when there is none. `/` is never suggested (every short
 * path is one edit from it).
 */
function meantRoute(routes: RouteTable, method: string, path: string): string {
  const keys = Object.keys(routes).filter((k) => !k.endsWith('*'));
  const meant = nearestName(
    path.replace(/(.)\/+$/, '$1'),
    [...new Set(keys.map((k) => k.split(' ')[1]))].filter((p) => p !== '/'),
  );
  if (meant === null) return '';
  const same = keys.includes(`${method} ${meant}`);
  return `did you mean ${same ? method : keys.find((k) => k.endsWith(` ${meant}`))?.split(' ')[0]} ${meant}? `;
}

/**
 * The listeners for a route table (`Listeners`). `request` finds the route (HEAD as GET; 404 listing the routes, 405
 * naming the methods the path takes, in its message and its Allow header; both in the shape of the path's family's
 * refusals, `familyErrorBody`), reads and caps the body, runs the handler and writes its value or its refusal. A
 * handler's unexpected error is a 500 whose message is the error's, never a stack; a body that stalls past
 * `bodyTimeoutMs` is a 408, one the client abandons is logged as CLIENT_CLOSED (499), never a 500; a body node's
 * parser breaks off is a 400 (`clientError`), logged as 400 even when the socket is gone by then. `onDone` gets method,
 * path, status and milliseconds (for `--log`), once per request, and what a client that could not hear the answer
 * missed (`OnDone`).
 */
export function listener(routes: RouteTable, onDone?: OnDone, bodyTimeoutMs = BODY_TIMEOUT_MS): Listeners {
  const paths = [...new Set(Object.keys(routes).map((k) => k.split(' ')[1].replace(/\/\*$/, '/{id}')))];
  const inFlight = new WeakMap<Duplex, InFlight>();
  const request = (req: IncomingMessage, res: ServerResponse) => {
    const t0 = performance.now();
    const url = requestUrl(req.url ?? '/');
    const key = `${req.method} ${url.pathname}`;
    // HEAD is GET without the body (RFC 9110 §9.3.2): node's response writes no body for a HEAD request.
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? '');
    const found = routeKey(routes, method, url.pathname);
    const route = found === undefined ? undefined : routes[found];
    const open: InFlight = { req, res, key, answered: false, refuse: () => {} };
    const finish = (status: number, value: unknown, message?: string) => {
      if (open.answered) return; // a body the parser broke off was answered already
      open.answered = true;
      // A client gone (closed, or its socket ended under a refusal) hears nothing: the log says what it missed.
      const heard = req.socket.writable && !req.socket.destroyed;
      if (heard) sendJson(res, status, value);
      const unheard = heard ? undefined : (message ?? `${key}: the client closed the connection before the answer`);
      onDone?.(req.method ?? '', url.pathname, status, performance.now() - t0, unheard);
    };
    inFlight.set(req.socket, open);
    res.once('close', () => inFlight.get(req.socket) === open && inFlight.delete(req.socket));
    // Any origin may call (a page served elsewhere, e.g. its http analyzer): CORS on every answer.
    res.setHeader('access-control-allow-origin', '*');
    const all = [...new Set(Object.keys(routes).map((k) => k.split(' ')[0]))];
    const taken = all.filter((m) => routeKey(routes, m, url.pathname) !== undefined);
    // HEAD goes wherever GET does
    const methods = taken.includes('GET') ? [...taken, 'HEAD'] : taken;
    if (req.method === 'OPTIONS' && methods.length && req.headers['access-control-request-method'] !== undefined) {
      // a CORS preflight (Fetch standard): the methods the path takes, the headers asked for
      res.writeHead(204, {
        'access-control-allow-methods': methods.join(', '),
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
        'access-control-max-age': '600',
      });
      res.end();
      req.resume();
      open.answered = true;
      onDone?.('OPTIONS', url.pathname, 204, performance.now() - t0);
      return;
    }
    if (!route) {
      const e = methods.length
        ? new HttpError(405, `${key} is not served; ${url.pathname} takes ${methods.join(', ')}`)
        : new HttpError(
            404,
            `no route ${key}; ${meantRoute(routes, method, url.pathname)}the routes: ${paths.join(', ')}`,
          );
      // A 405 says what the path takes in Allow too (RFC 9110 §15.5.6).
      if (methods.length) res.setHeader('allow', methods.join(', '));
      req.resume();
      const shaped = familyErrorBody(routes, url.pathname);
      finish(e.status, shaped ? shaped(e) : { error: e.message }, e.message);
      return;
    }
    const refuse = (err: HttpError) => {
      // A refused body may still be arriving: answer, then close the connection rather than read it.
      if ([413, 408, CLIENT_CLOSED].includes(err.status) && !res.headersSent) res.setHeader('connection', 'close');
      finish(err.status, route.errorBody ? route.errorBody(err) : { error: err.message }, err.message);
    };
    open.refuse = refuse;
    const body = method === 'GET' ? Promise.resolve('') : readBody(req, route.maxBody, key, bodyTimeoutMs);
    body
      .then((text) => route.handle({ url, body: text }))
      .then(
        (value) => finish(200, value),
        (e: unknown) =>
          refuse(e instanceof HttpError ? e : new HttpError(500, e instanceof Error ? e.message : String(e))),
      );
  };
  const clientError = (err: ParseError, socket: Duplex) => {
    const open = inFlight.get(socket);
    if (!open) return answerBadConnection(err, socket, routes, onDone);
    // The client closed the connection mid-body (llhttp's "invalid EOF state"): the body's reader logs 499.
    const closed = err.code === 'ECONNRESET' || err.code === 'HPE_INVALID_EOF_STATE';
    if (!open.answered && !open.req.complete && !closed && err.code?.startsWith('HPE_')) {
      // The body was still arriving: it is the body that is malformed, a 400 (logged with its message when the
      // socket is gone already, rather than as the 499 its destruction would give).
      open.res.setHeader('connection', 'close');
      open.refuse(badBodyEncoding(open.key, open.req, err));
      if (!socket.writable) socket.destroy();
      return;
    }
    // A closed connection, or bad bytes after a whole request: its answer ends the connection.
    if (closed || !socket.writable) return void socket.destroy();
    if (open.answered) socket.end();
    else open.res.setHeader('connection', 'close');
  };
  return { request, clientError };
}
