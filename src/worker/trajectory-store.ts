/**
 * The run's trajectories as the trainer used them, kept in the worker for the page's rollout explorer (worker layer,
 * docs/architecture.md). The trainer hands over every group of every completed step (core/train/step-detail.ts); the
 * store keeps
 * - every group of the last `recentSteps` steps (RunConfig.explorerSteps, default 20), and
 * - of older steps, one group (group 0, the one the `trajectories` event showed) of every `sampleEvery`-th step,
 * within `maxBytes` (default 64 MiB, `DEFAULT_STORE_BYTES`): when the estimate below passes it, the oldest sampled
 * groups go first, then the oldest steps of the window, group by group from the last; a single group larger than the
 * bound is not kept at all. `bytes` never exceeds `maxBytes` after `add` returns.
 *
 * Bytes are an estimate of the retained heap (`groupBytes`): typed arrays by their byteLength, strings at 2 bytes per
 * character (UTF-16; V8's one-byte strings take less, so strings are over-counted), and `OBJECT_BYTES` per record and
 * per array. The page asks for one group at a time (`group`); the store is never sent whole.
 */
import type { GroupDetail, StepDetail } from '../core/train/step-detail';
import type { StoreIndex } from './api';

/** Default byte bound of the store: 64 MiB. */
export const DEFAULT_STORE_BYTES = 64 * 1024 * 1024;
/** Older steps keep one group every this many steps. */
export const SAMPLE_EVERY = 10;
/** Estimated bytes of one JS object or array header with a few fields (V8 on 64-bit, rounded up). */
export const OBJECT_BYTES = 64;

/** What the store keeps (see the module comment). */
export interface StoreLimits {
  /** Steps whose every group is kept (≥ 1). */
  recentSteps: number;
  /** Older steps: one group of every `sampleEvery`-th step (≥ 1). */
  sampleEvery: number;
  /** Byte bound of the estimate (> 0). */
  maxBytes: number;
}

/**
 * Estimated retained bytes of one group: typed arrays by byteLength, strings at 2 bytes/char, OBJECT_BYTES per
 * record/array.
 */
export function groupBytes(g: GroupDetail): number {
  const str = (s: string | undefined) => (s === undefined ? 0 : 2 * s.length);
  const arr = (a: ArrayBufferView | null) => (a ? OBJECT_BYTES + a.byteLength : 0);
  let n = OBJECT_BYTES + str(g.task) + str(g.taskType) + OBJECT_BYTES;
  const t = g.tokens;
  n +=
    arr(t.ids) +
    arr(t.adv) +
    arr(t.aEp) +
    arr(t.aSkill) +
    arr(t.logpSkill) +
    arr(t.logpOld) +
    arr(t.logpRef) +
    arr(t.entropy) +
    arr(t.ratio);
  for (const tr of g.trajectories) {
    n += OBJECT_BYTES + str(tr.initialObservation) + str(tr.episodeSkill) + str(tr.analyzerError) + OBJECT_BYTES;
    for (const u of tr.turns)
      n += OBJECT_BYTES + arr(u.prompt) + str(u.observation) + str(u.reply) + str(u.action) + str(u.stepSkill);
  }
  return n;
}

interface Entry {
  g: GroupDetail;
  bytes: number;
}

/** The bounded store (see the module comment). Not thread-safe; the worker is single-threaded. */
export class TrajectoryStore {
  private readonly steps = new Map<number, Entry[]>();
  private held = 0;
  private limits: StoreLimits;

  /** @throws Error naming the field when a limit is not a positive integer (maxBytes: positive number). */
  constructor(limits: Partial<StoreLimits> = {}) {
    this.limits = checkLimits({ recentSteps: 20, sampleEvery: SAMPLE_EVERY, maxBytes: DEFAULT_STORE_BYTES, ...limits });
  }

  /** Estimated bytes held (≤ maxBytes). */
  get bytes(): number {
    return this.held;
  }

  /** The limits in force. */
  get bounds(): StoreLimits {
    return { ...this.limits };
  }

  /** Changes the limits (a new run's explorerSteps) and evicts to meet them. @throws Error as the constructor. */
  setLimits(limits: Partial<StoreLimits>): void {
    this.limits = checkLimits({ ...this.limits, ...limits });
    this.evict();
  }

  /** Drops everything (a new run). */
  clear(): void {
    this.steps.clear();
    this.held = 0;
  }

  /** Adds every group of a completed step (replacing a step of the same index), then evicts per the limits. */
  add(d: StepDetail): void {
    this.drop(d.step);
    this.steps.set(
      d.step,
      d.groups.map((g) => ({ g, bytes: groupBytes(g) })),
    );
    for (const e of this.steps.get(d.step)!) this.held += e.bytes;
    this.evict();
  }

  /** One stored group, or null when it was never stored or has been evicted. */
  group(step: number, group: number): GroupDetail | null {
    return this.steps.get(step)?.find((e) => e.g.group === group)?.g ?? null;
  }

  /** What is stored, steps and groups ascending (no trajectories). */
  index(): StoreIndex {
    const steps = [...this.steps.keys()]
      .sort((a, b) => a - b)
      .map((step) => ({
        step,
        groups: this.steps.get(step)!.map(({ g, bytes }) => ({
          group: g.group,
          task: g.task,
          taskType: g.taskType,
          solved: g.trajectories.filter((t) => t.success).length,
          size: g.trajectories.length,
          bytes,
        })),
      }));
    return { steps, bytes: this.held, ...this.limits };
  }

  private drop(step: number): void {
    for (const e of this.steps.get(step) ?? []) this.held -= e.bytes;
    this.steps.delete(step);
  }

  private evict(): void {
    const keys = () => [...this.steps.keys()].sort((a, b) => a - b);
    const all = keys();
    if (!all.length) return;
    const latest = all[all.length - 1];
    const { recentSteps, sampleEvery, maxBytes } = this.limits;
    // Outside the window: one group of every sampleEvery-th step, none of the others.
    for (const s of all) {
      if (s > latest - recentSteps) continue;
      const list = this.steps.get(s)!;
      const keep = s % sampleEvery === 0 ? list.filter((e) => e.g.group === 0).slice(0, 1) : [];
      if (keep.length === list.length) continue;
      for (const e of list) if (!keep.includes(e)) this.held -= e.bytes;
      if (keep.length) this.steps.set(s, keep);
      else this.steps.delete(s);
    }
    // Over the byte bound: oldest sampled steps first, then the window's oldest steps, last group first.
    while (this.held > maxBytes) {
      const s = keys()[0];
      const list = this.steps.get(s)!;
      const e = list.pop()!;
      this.held -= e.bytes;
      if (!list.length) this.steps.delete(s);
    }
  }
}

function checkLimits(l: StoreLimits): StoreLimits {
  if (!Number.isInteger(l.recentSteps) || l.recentSteps < 1)
    throw new Error(`trajectory store: recentSteps must be an integer ≥ 1, got ${l.recentSteps}`);
  if (!Number.isInteger(l.sampleEvery) || l.sampleEvery < 1)
    throw new Error(`trajectory store: sampleEvery must be an integer ≥ 1, got ${l.sampleEvery}`);
  if (!(l.maxBytes > 0))
    throw new Error(`trajectory store: maxBytes must be a positive number of bytes, got ${l.maxBytes}`);
  return l;
}
