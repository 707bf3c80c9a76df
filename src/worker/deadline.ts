/**
 * A deadline for a browser call that may never settle: a WebGPU `requestAdapter` or `setBackend('webgpu')` can hang
 * forever when the browser's GPU process is stuck or restarting. The backend probe (src/worker/backend.ts) puts one
 * on each, so a stuck adapter costs the user seconds and a named reason instead of a page that never starts.
 */

/** The error `withDeadline` rejects with when time runs out; `what` names the call, `ms` the deadline. */
export class DeadlineError extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not answer within ${ms / 1000} s`);
    this.name = 'DeadlineError';
  }
}

/**
 * Settles as `p` settles, or rejects with a DeadlineError after `ms` milliseconds, whichever comes first. The timer
 * is cleared when `p` settles; `p` itself is not cancelled (its late result is ignored).
 * @param p the call's promise.
 * @param ms the deadline in ms (> 0).
 * @param what the call's name, for the message, e.g. `navigator.gpu.requestAdapter()`.
 * @throws DeadlineError after `ms`; whatever `p` rejects with before.
 */
export function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
