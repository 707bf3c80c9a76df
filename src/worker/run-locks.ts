/**
 * One tab trains a stored run at a time: the worker holds a Web Locks API lock named `opd-run:<id>` while it trains
 * (or has just resumed) run `id` — a pause lets it go, and PageRuns.claim takes it back before training that run
 * again — and the Runs view shows a run whose lock another tab holds as "training in another tab" with Resume and
 * Delete off. Where `navigator.locks` is missing (old browsers, Node tests) nothing is locked and every run is free,
 * as before.
 */

/** The lock name of stored run `id`. */
export function runLockName(id: string): string {
  return `opd-run:${id}`;
}

/** The part of the Web Locks API's LockManager used here (a fake in tests). */
export interface LocksLike {
  request(
    name: string,
    options: { ifAvailable: boolean },
    callback: (lock: unknown) => Promise<unknown> | unknown,
  ): Promise<unknown>;
  query(): Promise<{ held?: { name?: string }[] }>;
}

/** The browser's (or worker's) LockManager, or null where there is none. */
export function webLocks(): LocksLike | null {
  const locks = (globalThis.navigator as { locks?: LocksLike } | undefined)?.locks;
  return locks && typeof locks.request === 'function' ? locks : null;
}

/** The run lock this worker holds: at most one, the run it records. */
export class TabRunLocks {
  private heldId: string | null = null;
  private releaseHeld: (() => void) | null = null;
  /** The latest `follow` target, so out-of-order grants give way. */
  private wanted: string | null = null;

  constructor(private readonly locks: LocksLike | null = webLocks()) {}

  /**
   * Take the lock of run `id` (giving up the one held before) if no other tab holds it; resolves whether this worker
   * holds it now. Always true without Web Locks.
   */
  async hold(id: string): Promise<boolean> {
    this.wanted = id;
    if (this.heldId === id || !this.locks) return true;
    this.release();
    return new Promise<boolean>((resolve, reject) => {
      this.locks!.request(runLockName(id), { ifAvailable: true }, (lock) => {
        if (lock === null || this.wanted !== id) {
          resolve(false);
          return undefined;
        }
        this.heldId = id;
        resolve(true);
        // Held until this promise resolves.
        return new Promise<void>((done) => (this.releaseHeld = done));
      }).catch(reject);
    });
  }

  /** Hold the lock of the run being recorded (`id`), or none (null); errors are ignored (the lock is advisory). */
  follow(id: string | null): void {
    if (id === this.wanted) return;
    if (id === null) {
      this.wanted = null;
      this.release();
    } else void this.hold(id).catch(() => undefined);
  }

  /** Give up the lock held (if any). */
  release(): void {
    this.releaseHeld?.();
    this.releaseHeld = null;
    this.heldId = null;
  }

  /** The ids of stored runs whose lock another tab holds (never the one this worker holds); [] without Web Locks. */
  async elsewhere(): Promise<string[]> {
    if (!this.locks) return [];
    try {
      const { held = [] } = await this.locks.query();
      const prefix = runLockName('');
      return held.flatMap((l) =>
        l.name?.startsWith(prefix) && l.name.slice(prefix.length) !== this.heldId ? [l.name.slice(prefix.length)] : [],
      );
    } catch {
      return [];
    }
  }
}

/** The refusal of `verb` (resume, delete) for stored run `name` that another tab trains. */
export function elsewhereMessage(verb: string, name: string): string {
  return (
    `cannot ${verb} run "${name}": it is training in another tab of this browser (one tab trains a run at a ` +
    `time); pause or close it there first`
  );
}
