/**
 * `npm run serve` request bodies that never arrive in full or cannot be read: a stalled body is refused with 408 after
 * the body timeout, a body the client abandons (a closed connection) is logged as 499 (client closed), never as 500,
 * and a malformed chunked body (a bad chunk-size line, a chunk without its CRLF) is answered 400 naming the encoding,
 * in the route's error shape, and logged as 400; a malformed head or one with both Content-Length and Transfer-Encoding
 * is a 400 naming the route when its request line names one; a chunk declared past the body cap is capped as its bytes
 * come (node's parser does not show the declared size); a body over the cap is read to its end and dropped before its
 * 413, so a client that writes all of it before reading hears the 413; a malformed body whose socket is gone when the
 * parser breaks off is still logged as 400, with its message as what the client did not hear. Raw requests on a `net`
 * socket.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logLine } from '../../cli/serve';
import { testServer } from '../helpers/serve';

type Logged = [string, string, number];
let srv: Awaited<ReturnType<typeof testServer>>;
const logged: Logged[] = [];
/** The messages of the refusals logged with a client that could not hear them (`OnDone`'s `unheard`). */
const unheard: string[] = [];

beforeAll(async () => {
  srv = await testServer({
    bodyTimeoutMs: 300,
    onRequest: (m, p, s, _ms, missed) => {
      logged.push([m, p, s]);
      if (missed !== undefined) unheard.push(missed);
    },
  });
});
afterAll(() => srv.close());

/** Write `head` and `body` raw to the server; resolves with all it answers once it closes the connection. */
function raw(text: string, closeAfterMs?: number, port = srv.port): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1', () => sock.write(text));
    let got = '';
    sock.on('data', (d) => (got += d.toString('utf8')));
    sock.on('close', () => resolve(got));
    sock.on('error', reject);
    if (closeAfterMs !== undefined) setTimeout(() => sock.destroy(), closeAfterMs);
  });
}

const STALLED =
  'POST /step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"env_i';

describe('environment server: bodies that do not arrive', () => {
  it('a stalled body (7 of 100 bytes) is refused with 408 after the body timeout, and logged as 408', async () => {
    const t0 = Date.now();
    const reply = await raw(STALLED);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({
      error:
        'POST /step: the request body did not arrive within 0.3 s (7 bytes came of the 100 declared); send the ' +
        'whole body at once',
    });
    expect(logged).toContainEqual(['POST', '/step', 408]);
  });

  it('a client that closes the connection mid-body is logged as 499 (client closed), not 500', async () => {
    logged.length = 0;
    unheard.length = 0;
    await raw(STALLED, 50);
    await expect.poll(() => logged, { timeout: 5000 }).toEqual([['POST', '/step', 499]]);
    expect(unheard).toEqual(['POST /step: the client closed the connection before the body arrived']);
    expect(logLine('POST', '/step', 499, 51.25, unheard[0])).toBe(
      'POST /step 499 51.3 ms (not heard: POST /step: the client closed the connection before the body arrived)',
    );
    expect(logLine('POST', '/step', 200, 0.44)).toBe('POST /step 200 0.4 ms');
  });

  /** The status line and the JSON body of a raw reply. */
  const parsed = (reply: string) => ({
    status: reply.slice(0, reply.indexOf('\r\n')),
    body: JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)),
  });
  const CHUNKED =
    'POST /step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
  const FIX =
    'send the body with a Content-Length, or as chunks of "<size in hex>\\r\\n<bytes>\\r\\n" ending with ' +
    '"0\\r\\n\\r\\n"';

  it('a bad chunk-size line is answered 400 naming the encoding, and logged as 400 (was 499)', async () => {
    logged.length = 0;
    const reply = await raw(`${CHUNKED}3\r\n{"e\r\nzz\r\n`);
    expect(parsed(reply)).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: {
        error:
          'POST /step: the request body is not valid chunked encoding (Parse Error: Invalid character in chunk size, ' +
          `HPE_INVALID_CHUNK_SIZE); ${FIX}`,
      },
    });
    expect(reply).toMatch(/\r\nConnection: close\r\n/i);
    await expect.poll(() => logged, { timeout: 5000 }).toEqual([['POST', '/step', 400]]);
  });

  it("a chunk without its CRLF on /v1/chat/completions: 400 in OpenAI's error shape", async () => {
    logged.length = 0;
    const head = CHUNKED.replace('/step', '/v1/chat/completions');
    const reply = await raw(`${head}3\r\n{"mXX`);
    expect(parsed(reply)).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: {
        error: {
          message:
            'POST /v1/chat/completions: the request body is not valid chunked encoding (Parse Error: Expected LF ' +
            `after chunk data, HPE_STRICT); ${FIX}`,
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
    });
    await expect.poll(() => logged, { timeout: 5000 }).toEqual([['POST', '/v1/chat/completions', 400]]);
  });

  /** A parse error as node's parser reports it (`clientError`'s first argument). */
  const parseError = (message: string, code: string, rawPacket?: Buffer) =>
    Object.assign(new Error(`Parse Error: ${message}`), { code, rawPacket, bytesParsed: rawPacket?.length });
  /** Resolves once both ends of a connection have closed. */
  const closed = (...socks: Socket[]) => Promise.all(socks.map((s) => new Promise((r) => s.once('close', r))));

  it('a malformed chunk whose socket is gone by then: logged as 400 with its message, not as 499', async () => {
    logged.length = 0;
    unheard.length = 0;
    const client = connect(srv.port, '127.0.0.1');
    const arrived = new Promise<Socket>((resolve) => srv.server.once('request', (req) => resolve(req.socket)));
    client.write(`${CHUNKED}3\r\n{"e\r\n`);
    const socket = await arrived;
    const gone = closed(client, socket);
    socket.end(); // the server's side can no longer be written when the parser breaks off the next chunk
    srv.server.emit('clientError', parseError('Invalid character in chunk size', 'HPE_INVALID_CHUNK_SIZE'), socket);
    await gone;
    expect(logged).toEqual([['POST', '/step', 400]]);
    expect(unheard).toEqual([
      'POST /step: the request body is not valid chunked encoding (Parse Error: Invalid character in chunk size, ' +
        `HPE_INVALID_CHUNK_SIZE); ${FIX}`,
    ]);
  });

  it('a malformed head whose socket is gone by then: logged under its route with its message', async () => {
    logged.length = 0;
    unheard.length = 0;
    const client = connect(srv.port, '127.0.0.1');
    const socket = await new Promise<Socket>((resolve) => srv.server.once('connection', resolve));
    const gone = closed(client, socket);
    socket.end();
    const head = Buffer.from('POST /step HTTP/1.1\r\nHo st: x\r\n');
    srv.server.emit('clientError', parseError('Invalid header token', 'HPE_INVALID_HEADER_TOKEN', head), socket);
    await gone;
    expect(logged).toEqual([['POST', '/step', 400]]);
    expect(unheard).toEqual([
      'POST /step: the request is not valid HTTP/1.1 (Parse Error: Invalid header token, HPE_INVALID_HEADER_TOKEN)',
    ]);
  });

  it('a malformed request head (no request yet) is answered 400 as JSON, and a good request still works', async () => {
    logged.length = 0;
    const reply = await raw('POST /nowhere HTTP/1.1\r\nHo st: x\r\n\r\n');
    // CORS on this answer too, as on every other: a page that sent it can read the refusal
    expect(reply.split('\r\n')).toContain('Access-Control-Allow-Origin: *');
    expect(parsed(reply)).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: {
        error: 'the request is not valid HTTP/1.1 (Parse Error: Invalid header token, HPE_INVALID_HEADER_TOKEN)',
      },
    });
    expect(logged).toEqual([]); // no route: nothing to log it under
    // A route's request line was read: the refusal names the route and is logged under it, as its other refusals.
    expect(parsed(await raw('POST /step HTTP/1.1\r\nHo st: x\r\n\r\n'))).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: {
        error:
          'POST /step: the request is not valid HTTP/1.1 (Parse Error: Invalid header token, ' +
          'HPE_INVALID_HEADER_TOKEN)',
      },
    });
    expect(logged).toEqual([['POST', '/step', 400]]);
    expect((await fetch(`${srv.base}/health`)).status).toBe(200);
  });

  it('both Content-Length and Transfer-Encoding: 400 naming the route, in its error shape, with the fix', async () => {
    logged.length = 0;
    const both = (path: string, first: string, second: string) =>
      raw(`POST ${path} HTTP/1.1\r\nHost: x\r\n${first}\r\n${second}\r\n\r\n5\r\n{"a":\r\n0\r\n\r\n`);
    const FIX_BOTH = 'send the body with a Content-Length or with Transfer-Encoding: chunked, not both';
    expect(parsed(await both('/step?x=1', 'Content-Length: 5', 'Transfer-Encoding: chunked'))).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: {
        error:
          "POST /step: the request is not valid HTTP/1.1 (Parse Error: Transfer-Encoding can't be present with " +
          `Content-Length, HPE_INVALID_TRANSFER_ENCODING); ${FIX_BOTH}`,
      },
    });
    const chat = parsed(await both('/v1/chat/completions', 'Transfer-Encoding: chunked', 'Content-Length: 5'));
    expect(chat).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: {
        error: {
          message:
            "POST /v1/chat/completions: the request is not valid HTTP/1.1 (Parse Error: Content-Length can't be " +
            `present with Transfer-Encoding, HPE_INVALID_CONTENT_LENGTH); ${FIX_BOTH}`,
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
    });
    expect(logged).toEqual([
      ['POST', '/step', 400],
      ['POST', '/v1/chat/completions', 400],
    ]);
  });

  it("a chunk declared past the cap: node's parser hides the size, so its bytes are capped as they come", async () => {
    // node's parser hands JavaScript a chunk's bytes, not its declared size: 408 when they stop coming ...
    logged.length = 0;
    expect(parsed(await raw(`${CHUNKED}FFFFFFFFFFFFFFFF\r\n{"e`))).toEqual({
      status: 'HTTP/1.1 408 Request Timeout',
      body: {
        error: 'POST /step: the request body did not arrive within 0.3 s (3 bytes came); send the whole body at once',
      },
    });
    // ... 413 as soon as they pass the cap (64 KiB) ...
    expect(parsed(await raw(`${CHUNKED}FFFFFFFFFFFFFFFF\r\n${'x'.repeat(64 * 1024 + 1)}`))).toEqual({
      status: 'HTTP/1.1 413 Payload Too Large',
      body: { error: 'POST /step: the request body is over 64 KiB, the most this route takes; send less' },
    });
    // ... and a size past 2^64 − 1 is refused by the parser at once.
    expect(parsed(await raw(`${CHUNKED}1FFFFFFFFFFFFFFFF\r\n`))).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: {
        error:
          'POST /step: the request body is not valid chunked encoding (Parse Error: Chunk size overflow, ' +
          `HPE_INVALID_CHUNK_SIZE); ${FIX}`,
      },
    });
    expect(logged).toEqual([
      ['POST', '/step', 408],
      ['POST', '/step', 413],
      ['POST', '/step', 400],
    ]);
  });

  it('a client that sends its whole over-cap body before reading hears the 413 (was a broken pipe)', async () => {
    // as Python's http.client does: the rest is read and dropped before the answer, so no byte is left unread (a
    // server of its own with the default body timeout, the time the 16 MiB have to arrive on a loaded machine)
    const seen: Logged[] = [];
    const own = await testServer({ onRequest: (m, p, s) => seen.push([m, p, s]) });
    try {
      const big = 'x'.repeat(16 << 20);
      const declared = `POST /step HTTP/1.1\r\nHost: x\r\nContent-Length: ${big.length}\r\n\r\n${big}`;
      const chunked = `${CHUNKED}${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`;
      for (const request of [declared, chunked])
        expect(parsed(await raw(request, undefined, own.port))).toEqual({
          status: 'HTTP/1.1 413 Payload Too Large',
          body: { error: 'POST /step: the request body is over 64 KiB, the most this route takes; send less' },
        });
      expect(seen).toEqual([
        ['POST', '/step', 413],
        ['POST', '/step', 413],
      ]);
    } finally {
      await own.close();
    }
  });
});
