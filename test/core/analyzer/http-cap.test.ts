/**
 * The byte cap on the `http` analyzer's replies against a real local server (node:http on 127.0.0.1, port 0): a body
 * streamed without end stops at the 4 MiB cap within a short time, with a counted failure naming the cap, while the
 * process memory stays far below what the server streamed; a declared Content-Length over the cap is refused without
 * reading; a normal reply, and one just under the cap, still work. Also the helper itself on web streams.
 */
import { createServer, type ServerResponse, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpAnalyzer, testConnection } from '../../../src/core/analyzer/http';
import { MAX_REPLY_BYTES } from '../../../src/core/analyzer/http-exchange';
import type { AnalyzerGroup } from '../../../src/core/analyzer/types';
import { episodeSkill, stepSkill } from '../../../src/core/skills/grammar';
import { MIB, ReadCapError, readCappedBytes, readCappedText, sizeWords } from '../../../src/core/read-capped';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(null));
  server = undefined;
});

/** What the server did: bytes it handed to the socket, and whether the client closed the connection. */
interface Sent {
  bytes: number;
  closed: boolean;
}

/**
 * A server answering every POST with `reply(res, sent)` (`sent` per POST, in order) and a GET with a short text (a
 * warm-up, so fetch's own first-use memory is not counted in the measurements).
 */
async function serve(reply: (res: ServerResponse, sent: Sent) => void) {
  const sent: Sent[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET') return void res.end('ok');
      const s: Sent = { bytes: 0, closed: false };
      sent.push(s);
      res.on('close', () => (s.closed = true));
      reply(res, s);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, sent };
}

const STREAM_LIMIT = 64 * MIB;
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

/** Streams spaces as fast as the socket takes them, until the client disconnects or STREAM_LIMIT bytes. */
function flood(res: ServerResponse, s: Sent, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  const pump = () => {
    while (!s.closed && s.bytes < STREAM_LIMIT) {
      s.bytes += CHUNK.length;
      if (!res.write(CHUNK)) return void res.once('drain', pump);
    }
    if (!s.closed) res.end();
  };
  pump();
}

const completion = (content: string, pad = '') =>
  JSON.stringify({
    object: 'chat.completion',
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  }).replace(/^\{/, `{${pad}`);

const acts = ['go to countertop 2', 'take apple 1 from countertop 2', 'go to fridge 1', 'move apple 1 to fridge 1'];
const group: AnalyzerGroup = {
  env: 'household',
  trajectories: [
    {
      task: 'put an apple in fridge.',
      success: true,
      finalObservation: 'You move the apple 1 to the fridge 1.',
      steps: acts.map((action, i) => ({ observation: `obs ${i}`, action, valid: true, return: i === 3 ? 1 : 0 })),
    },
  ],
};
const GOOD = { episodeSkill: episodeSkill(acts), stepSkills: { 1: stepSkill(acts[1]) } };
const skills = JSON.stringify(GOOD);

const STREAMED_REASON =
  'reply body after HTTP 200 over the 4 MiB cap: stopped reading there and closed the connection; a chat ' +
  'completion is a few KiB, so check that the base URL is an OpenAI-compatible server';

/** `fn()` with its wall time (ms) and the peak rise of the process's rss (bytes) sampled every 5 ms meanwhile. */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; rssDelta: number }> {
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  try {
    const value = await fn();
    return { value, ms: performance.now() - t0, rssDelta: Math.max(peak, process.memoryUsage().rss) - rss0 };
  } finally {
    clearInterval(timer);
  }
}

describe('the http analyzer caps a reply body at 4 MiB', () => {
  it('an endless body: a failure naming the cap in well under the timeout, not retried, rss far below', async () => {
    expect(MAX_REPLY_BYTES).toBe(4 * MIB);
    const s = await serve((res, sent) => flood(res, sent));
    const a = new HttpAnalyzer({
      baseUrl: s.url,
      model: 'm',
      maxStepSkills: 5,
      maxRetries: 2,
      retryDelayMs: 1,
      timeoutMs: 20_000,
    });
    expect(await (await fetch(s.url)).text()).toBe('ok');
    const m = await measured(() => a.analyze(group));
    expect(m.value).toEqual([null]);
    expect(a.stats()).toMatchObject({ calls: 1, failures: 1, failureReasons: { [STREAMED_REASON]: 1 } });
    await expect.poll(() => s.sent[0].closed, { timeout: 5000 }).toBe(true);
    console.log(
      `endless body: failed after ${m.ms.toFixed(0)} ms, rss +${sizeWords(m.rssDelta)}, ` +
        `server wrote ${sizeWords(s.sent[0].bytes)} before the client hung up`,
    );
    expect(m.ms).toBeLessThan(5000);
    expect(s.sent[0].bytes).toBeLessThan(STREAM_LIMIT); // the client hung up: the server stopped short
    expect(m.rssDelta).toBeLessThan(32 * MIB); // the whole stream would be 64 MiB (128 MiB as a JS string)

    const t = await testConnection({ baseUrl: s.url, model: 'm', timeoutMs: 20_000 });
    expect(t).toEqual({ ok: false, reason: STREAMED_REASON });
  });

  it('a Content-Length over the cap is refused without reading the body', async () => {
    // The server declares 100 MiB and sends one chunk, then stalls: a client that read on would wait for the timeout.
    const s = await serve((res, sent) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * MIB) });
      sent.bytes += CHUNK.length;
      res.write(CHUNK);
    });
    const a = new HttpAnalyzer({ baseUrl: s.url, model: 'm', maxStepSkills: 5, retryDelayMs: 1, timeoutMs: 10_000 });
    const m = await measured(() => a.analyze(group));
    expect(m.value).toEqual([null]);
    const reason =
      'reply body after HTTP 200 over the 4 MiB cap: its Content-Length declares 100 MiB, so none of it was read; ' +
      'a chat completion is a few KiB, so check that the base URL is an OpenAI-compatible server';
    expect(a.stats()).toMatchObject({ calls: 1, failures: 1, failureReasons: { [reason]: 1 } });
    expect(m.ms).toBeLessThan(3000);
    await expect.poll(() => s.sent[0].closed, { timeout: 5000 }).toBe(true);
    expect(await testConnection({ baseUrl: s.url, model: 'm', timeoutMs: 10_000 })).toEqual({ ok: false, reason });
  });

  it('an error status with an endless body names the status and the cap', async () => {
    const s = await serve((res, sent) => flood(res, sent, 500));
    const t = await testConnection({ baseUrl: s.url, model: 'm', timeoutMs: 20_000 });
    expect(t.ok).toBe(false);
    expect(t.ok ? '' : t.reason).toMatch(/^reply body after HTTP 500 over the 4 MiB cap: stopped reading/);
  });

  it('a normal reply, and one of 3.9 MiB (just under the cap) with its Content-Length, still work', async () => {
    const pad = ' '.repeat(3.9 * MIB);
    const s = await serve((res, sent) => {
      const body = Buffer.from(completion(skills, sent === s.sent[1] ? pad : ''));
      sent.bytes = body.length;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) }).end(body);
    });
    const a = new HttpAnalyzer({ baseUrl: s.url, model: 'm', maxStepSkills: 5, concurrency: 1, timeoutMs: 10_000 });
    const r1 = await a.analyze(group);
    const r2 = await a.analyze(group);
    expect(r1).toEqual([GOOD]);
    expect(r2).toEqual(r1);
    expect(s.sent[1].bytes).toBeGreaterThan(3.9 * MIB);
    expect(a.stats()).toMatchObject({ calls: 2, failures: 0 });
    expect((await testConnection({ baseUrl: s.url, model: 'm' })).ok).toBe(true);
  });
});

/** A web stream of `n` chunks of `size` bytes; `pulled()` counts the chunks taken. */
function chunks(n: number, size: number) {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i >= n) return c.close();
      i++;
      c.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
  return { body, pulled: () => i };
}

describe('readCappedBytes / readCappedText', () => {
  it('reads up to the cap exactly; one byte more stops, cancels, names the cap and what was read', async () => {
    expect(await readCappedText({ body: chunks(4, 256).body }, 1024, 'x')).toBe('a'.repeat(1024));
    const over = chunks(100, 256);
    const e = await readCappedBytes({ body: over.body }, 1023, 'the reply').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ReadCapError);
    expect((e as ReadCapError).message).toBe(
      'the reply passed its 1023 bytes cap: stopped after reading 1 KiB (1024 bytes)',
    );
    expect(over.pulled()).toBeLessThanOrEqual(6); // the stream was cancelled, not drained
  });

  it('refuses a declared Content-Length over the cap before reading; an empty body is empty', async () => {
    const big = chunks(100, 256);
    const headers = new Headers({ 'content-length': String(5 * MIB) });
    await expect(readCappedBytes({ headers, body: big.body }, 4 * MIB, 'the reply')).rejects.toThrow(
      'the reply declares 5 MiB (Content-Length 5242880), over its 4 MiB cap; not read',
    );
    expect(big.pulled()).toBeLessThanOrEqual(1);
    expect(await readCappedBytes({ body: null }, 10, 'x')).toEqual(new Uint8Array(0));
    // a garbled Content-Length is ignored: the stream count decides
    const odd = new Headers({ 'content-length': '12, 12' });
    expect(await readCappedText({ headers: odd, body: chunks(1, 12).body }, 12, 'x')).toBe('a'.repeat(12));
  });

  it('decodes as Response.text() does (a BOM dropped, a bad byte replaced)', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0xff, 0x69]);
    const want = await new Response(bytes).text();
    expect(await readCappedText(new Response(bytes), 100, 'x')).toBe(want);
  });
});
