/**
 * `npm run serve` when the port cannot be had (cli/serve.ts `serve`, `listenErrorLine`): exit 1 and one line naming
 * the address and the listen error, with the fix for a port another process holds.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listenErrorLine, serve } from '../../cli/serve';

afterEach(() => vi.restoreAllMocks());

describe('serve on a port it cannot have', () => {
  it('a port another process holds: exit 1, the error and the fix (--port 0)', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as { port: number }).port;
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (written.push(String(s)), true));
    try {
      expect(await serve(['--host', '127.0.0.1', '--port', String(port)])).toBe(1);
    } finally {
      await new Promise<void>((r) => holder.close(() => r()));
    }
    expect(written.join('')).toBe(
      `serve: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n` +
        `  another process holds port ${port}: pass --port with a free one, or --port 0 for any free port\n`,
    );
  });

  it('a privileged port refused, and an error with no fix to give', () => {
    const eacces = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), { code: 'EACCES' });
    expect(listenErrorLine('0.0.0.0', 80, eacces)).toBe(
      'serve: cannot listen on 0.0.0.0:80: listen EACCES: permission denied 0.0.0.0:80\n' +
        '  ports below 1024 need privileges: pass --port 1024 or above, or --port 0',
    );
    const other = Object.assign(new Error('getaddrinfo ENOTFOUND nohost'), { code: 'ENOTFOUND' });
    expect(listenErrorLine('nohost', 8000, other)).toBe(
      'serve: cannot listen on nohost:8000: getaddrinfo ENOTFOUND nohost',
    );
  });
});
