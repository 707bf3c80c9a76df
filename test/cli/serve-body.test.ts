/**
 * `npm run serve` request bodies that never arrive in full: a stalled body is refused with 408 after the body timeout,
 * and a body the client abandons (a closed connection, a malformed chunk) is logged as 499 (client closed), never
 * as 500.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer } from '../helpers/serve';

type Logged = [string, string, number];
let srv: Awaited<ReturnType<typeof testServer>>;
const logged: Logged[] = [];

beforeAll(async () => {
  srv = await testServer({ bodyTimeoutMs: 300, onRequest: (m, p, s) => logged.push([m, p, s]) });
});
afterAll(() => srv.close());

/** Write `head` and `body` raw to the server; resolves with all it answers once it closes the connection. */
function raw(text: string, closeAfterMs?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(srv.port, '127.0.0.1', () => sock.write(text));
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
    await raw(STALLED, 50);
    await expect.poll(() => logged, { timeout: 5000 }).toEqual([['POST', '/step', 499]]);
  });

  it('a malformed chunked body (node drops the connection) is logged as 499, not 500', async () => {
    logged.length = 0;
    const head =
      'POST /step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    await raw(`${head}3\r\n{"e\r\nzz\r\n`);
    await expect.poll(() => logged, { timeout: 5000 }).toEqual([['POST', '/step', 499]]);
  });
});
