/**
 * Every token quantity of the rollout explorer against the worker's own numbers (Chromium, wasm, OPID with the
 * heuristic analyzer, one step): the trainer worker's outgoing messages are recorded (a wrapper around its
 * postMessage, installed before the step) — the `trajectories` event the trainer yielded (per-token ℓ_old, ℓ_ref,
 * A, entropy, ℓ_skill, A_skill and the trajectory's A_ep) and the explorer group it sent (the step data: A, A_ep,
 * A_skill, ℓ_skill, ℓ_old, ℓ_ref, entropy, the PPO ratio ρ). For one token with all nine quantities, the value
 * the page shows for each of A, A_ep, A_skill, ℓ_skill, ℓ_old, ℓ_ref, k3 KL, entropy and ρ equals the worker's
 * (the KL from its ℓ_ref and ℓ_old, Schulman 2020), and its focus text shows it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page, Worker } from 'playwright-core';
import { ROOT, useE2E } from './harness';
import { stepTo, waitPhase } from './run-store-page';
import { QUANTITIES, formatQuantity, type ExplorerQuantity } from '../../src/ui/state/explorer-values';

const BASE_MODEL = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
const LINK = `backend=wasm&model=${BASE_MODEL}&algo=opid&steps=3&tasksPerStep=1&groupSize=4&miniBatches=2&evalEvery=0`;

const { open } = useE2E({ startTimeoutMs: 600_000 });

/** The per-token fields of a `trajectories` event's token (core/train/events.ts TokenView). */
interface EventToken {
  logpOld: number;
  logpRef: number;
  adv: number;
  entropy: number;
  logpSkill?: number;
  advSkill?: number;
}
/** What the test reads back from the worker's recorded messages. */
interface Recorded {
  /** The trajectories event of step 1: per trajectory, its A_ep and per turn its tokens. */
  event: { advantage: number; steps: { tokens: EventToken[] }[] }[];
  /** The explorer group (step 1, group 0) as sent: token vectors as plain arrays, turns' token spans. */
  group: {
    tokens: Record<string, number[] | null>;
    trajectories: { turns: { tokenStart: number; tokenCount: number }[] }[];
  };
}

/**
 * The trainer worker, by its script (`trainer.worker-<hash>.js`); wasm's thread workers are left out (they sit in
 * Atomics.wait, where an evaluate would never return).
 */
async function trainerWorker(page: Page): Promise<Worker> {
  await expect
    .poll(() => page.workers().filter((x) => x.url().includes('trainer.worker')).length, { timeout: 60_000 })
    .toBe(1);
  const w = page.workers().find((x) => x.url().includes('trainer.worker'))!;
  expect(await w.evaluate(() => (globalThis as { name?: string }).name)).toBe('opd-trainer');
  return w;
}

/** Records a copy of every message the worker posts (to the page and on Comlink's callback ports) from now on. */
async function recordMessages(w: Worker): Promise<void> {
  await w.evaluate(() => {
    const g = globalThis as unknown as { __sent: unknown[]; postMessage: (m: unknown, t?: Transferable[]) => void };
    g.__sent = [];
    const keep = (m: unknown) => {
      try {
        g.__sent.push(structuredClone(m)); // before a transfer detaches its buffers
      } catch {
        // a message carrying a port (a Comlink proxy): not step data
      }
    };
    const port = MessagePort.prototype.postMessage;
    MessagePort.prototype.postMessage = function (this: MessagePort, m: unknown, t?: Transferable[]) {
      keep(m);
      return Reflect.apply(port, this, t === undefined ? [m] : [m, t]);
    } as typeof port;
    const self = g.postMessage.bind(g);
    g.postMessage = (m: unknown, t?: Transferable[]) => {
      keep(m);
      self(m, t);
    };
  });
}

/** The recorded trajectories event of step 1 and the explorer group (step 1, group 0), as plain data. */
async function recorded(w: Worker): Promise<Recorded> {
  return w.evaluate(() => {
    const found: { event?: unknown; group?: unknown } = {};
    const walk = (x: unknown, depth: number): void => {
      if (typeof x !== 'object' || x === null || depth > 6 || ArrayBuffer.isView(x)) return;
      const o = x as Record<string, unknown>;
      if (o.event === 'trajectories' && o.step === 1) found.event ??= o.group;
      if (o.step === 1 && o.group === 0 && typeof o.tokens === 'object' && Array.isArray(o.trajectories))
        found.group ??= o;
      for (const v of Array.isArray(x) ? x : Object.values(o)) walk(v, depth + 1);
    };
    for (const m of (globalThis as unknown as { __sent: unknown[] }).__sent) walk(m, 0);
    if (!found.event || !found.group) throw new Error(`recorded: event ${!!found.event}, group ${!!found.group}`);
    const g = found.group as {
      tokens: Record<string, ArrayLike<number> | null>;
      trajectories: { turns: { tokenStart: number; tokenCount: number }[] }[];
    };
    return {
      event: found.event as Recorded['event'],
      group: {
        tokens: Object.fromEntries(Object.entries(g.tokens).map(([k, v]) => [k, v ? Array.from(v) : null])),
        trajectories: g.trajectories.map((t) => ({
          turns: t.turns.map((u) => ({ tokenStart: u.tokenStart, tokenCount: u.tokenCount })),
        })),
      },
    };
  });
}

/** k3 KL of one token, exp(δ) − δ − 1 with δ = ℓ_ref − ℓ_old clamped to [−10, 10] (Schulman 2020). */
function k3(logpRef: number, logpOld: number): number {
  const d = logpRef - logpOld;
  return Math.min(10, Math.max(-10, Math.exp(d) - d - 1));
}

describe("explorer: every token quantity equals the worker's step data (OPID, wasm)", () => {
  it('A, A_ep, A_skill, ℓ_skill, ℓ_old, ℓ_ref, KL, entropy and ρ of one token', async () => {
    const { page, logs } = await open(LINK);
    page.setDefaultTimeout(60_000); // an action on a missing element fails instead of waiting for the test's timeout
    await waitPhase(page, 'ready', logs, 120_000);
    const worker = await trainerWorker(page);
    await recordMessages(worker);
    await stepTo(page, 1, logs);
    await page.getByRole('button', { name: 'Explorer', exact: true }).click();
    await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('1');
    expect(await page.getByTestId('explorer-group').inputValue()).toBe('0');
    await expect.poll(async () => page.getByTestId('explorer-token').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const { event, group } = await recorded(worker);
    const t = group.tokens;

    // The first token with every quantity computed (A_skill and ρ are NaN where the step had none) and A_skill ≠ 0.
    const vecs = ['adv', 'aEp', 'aSkill', 'logpSkill', 'logpOld', 'logpRef', 'entropy', 'ratio'];
    for (const v of vecs) expect(t[v], v).not.toBeNull();
    const m = t.ids!.findIndex((_, i) => vecs.every((v) => Number.isFinite(t[v]![i])) && t.aSkill![i] !== 0);
    expect(m, 'a token with every quantity').toBeGreaterThanOrEqual(0);
    const k = group.trajectories.findIndex((tr) =>
      tr.turns.some((u) => m >= u.tokenStart && m < u.tokenStart + u.tokenCount),
    );
    const turn = group.trajectories[k].turns.findIndex((u) => m >= u.tokenStart && m < u.tokenStart + u.tokenCount);
    const j = m - group.trajectories[k].turns[turn].tokenStart;
    const ev = event[k].steps[turn].tokens[j];

    // What the worker holds for the token: its step data, and the same numbers in the trainer's event.
    const want: Record<ExplorerQuantity, number> = {
      adv: t.adv![m],
      aEp: t.aEp![m],
      aSkill: t.aSkill![m],
      logpSkill: t.logpSkill![m],
      logpOld: t.logpOld![m],
      logpRef: t.logpRef![m],
      kl: k3(t.logpRef![m], t.logpOld![m]),
      entropy: t.entropy![m],
      ratio: t.ratio![m],
    };
    expect({
      adv: ev.adv,
      aEp: Math.fround(event[k].advantage),
      aSkill: ev.advSkill,
      logpSkill: ev.logpSkill,
      logpOld: ev.logpOld,
      logpRef: ev.logpRef,
      kl: k3(ev.logpRef, ev.logpOld),
      entropy: ev.entropy,
    }).toEqual({
      adv: want.adv,
      aEp: want.aEp,
      aSkill: want.aSkill,
      logpSkill: want.logpSkill,
      logpOld: want.logpOld,
      logpRef: want.logpRef,
      kl: want.kl,
      entropy: want.entropy,
    });
    expect(want.ratio).toBeGreaterThan(0);

    // The page: trajectory k, turn `turn`, token j, coloured by each quantity in turn.
    await page.getByTestId('explorer-trajectory').nth(k).click();
    await page.getByTestId('explorer-turn').focus();
    for (let i = 0; i < turn; i++) await page.keyboard.press('ArrowRight');
    expect(await page.getByTestId('explorer-turn-counter').textContent()).toBe(
      `turn ${turn + 1} / ${group.trajectories[k].turns.length}`,
    );
    const shown: Record<string, number> = {};
    for (const q of QUANTITIES) {
      await page.getByTestId('explorer-quantity').selectOption(q.id);
      const tok = page.getByTestId('explorer-token').nth(j);
      shown[q.id] = Number(await tok.getAttribute('data-value'));
      await tok.focus();
      await expect
        .poll(async () => page.getByTestId('explorer-token-value').textContent())
        .toContain(`${q.label} = ${formatQuantity(want[q.id], q.id)}`);
    }
    expect(Object.keys(shown)).toHaveLength(9);
    expect(shown).toEqual(want);
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await page.close();
  }, 900_000);
});
