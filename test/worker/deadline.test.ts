import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadlineError, withDeadline } from '../../src/worker/deadline';

describe('withDeadline', () => {
  afterEach(() => vi.useRealTimers());

  it('rejects a call that never settles after the deadline, naming the call and the seconds', async () => {
    vi.useFakeTimers();
    const never = new Promise<number>(() => undefined);
    const p = withDeadline(never, 10_000, 'navigator.gpu.requestAdapter()');
    const seen = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(9_999);
    let settled = false;
    void p.then(
      () => (settled = true),
      () => (settled = true),
    );
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const e = await seen;
    expect(e).toBeInstanceOf(DeadlineError);
    expect((e as Error).message).toBe('navigator.gpu.requestAdapter() did not answer within 10 s');
  });

  it('passes a value or a rejection through before the deadline and leaves no timer behind', async () => {
    vi.useFakeTimers();
    await expect(withDeadline(Promise.resolve(7), 1000, 'x')).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('lost device')), 1000, 'x')).rejects.toThrow('lost device');
    expect(vi.getTimerCount()).toBe(0);
  });
});
