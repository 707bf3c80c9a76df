/**
 * A live chart's x (step) range after Reset: the run's steps are cleared, so each chart gets no points; its x axis
 * must start over instead of keeping the discarded run's steps (stepRange, src/ui/state/chart-data.ts, the x-scale
 * range of Chart.svelte). Its y range without a fixed one (valueRange): a line whose values differ by a hair (an OPID
 * teacher share of 0.99999997 then 0.99999998) gets a band, not uPlot's zero-width nice range, on which its axis
 * ticks never end; values all ≥ 0 (a clip fraction flat at 0) get no range below 0. Checked on real uPlot, in Node
 * with a minimal stand-in for the DOM and canvas it touches (it draws nothing that is read here; only its scales are).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type uPlotType from 'uplot';
import { stepRange, valueRange } from '../../src/ui/state/chart-data';

const noop = () => {};
const G = globalThis as Record<string, unknown>;
const STUBS = [
  'document',
  'window',
  'navigator',
  'devicePixelRatio',
  'matchMedia',
  'Path2D',
  'getComputedStyle',
  'HTMLElement',
  'dispatchEvent',
  'addEventListener',
  'removeEventListener',
];
const saved = new Map(STUBS.map((k) => [k, Object.getOwnPropertyDescriptor(globalThis, k)]));
let uPlot: typeof uPlotType;

/** A stand-in element: what uPlot calls while building and sizing a plot. */
function element(): Record<string, unknown> {
  const ctx = new Proxy(
    {},
    {
      get: (t: Record<string | symbol, unknown>, k) =>
        k in t
          ? t[k]
          : k === 'measureText'
            ? () => ({ width: 10, actualBoundingBoxAscent: 5, actualBoundingBoxDescent: 2 })
            : noop,
      set: (t: Record<string | symbol, unknown>, k, v) => ((t[k] = v), true),
    },
  );
  return {
    style: {},
    childNodes: [],
    classList: { add: noop, remove: noop, toggle: noop, contains: () => false },
    appendChild: (c: unknown) => c,
    insertBefore: (c: unknown) => c,
    removeChild: noop,
    remove: noop,
    addEventListener: noop,
    removeEventListener: noop,
    setAttribute: noop,
    getBoundingClientRect: () => ({ left: 0, top: 0, width: 300, height: 130 }),
    getContext: () => ctx,
    textContent: '',
  };
}

beforeAll(async () => {
  const stub = (k: string, v: unknown) =>
    Object.defineProperty(globalThis, k, { value: v, configurable: true, writable: true });
  stub('document', {
    createElement: element,
    createTextNode: element,
    addEventListener: noop,
    removeEventListener: noop,
  });
  stub('window', globalThis);
  stub('navigator', { userAgent: 'node' });
  stub('devicePixelRatio', 1);
  stub('matchMedia', () => ({
    addEventListener: noop,
    removeEventListener: noop,
    addListener: noop,
    removeListener: noop,
  }));
  stub(
    'Path2D',
    class {
      moveTo = noop;
      lineTo = noop;
      rect = noop;
      arc = noop;
      closePath = noop;
      bezierCurveTo = noop;
      addPath = noop;
    },
  );
  stub('getComputedStyle', () => ({}));
  stub('HTMLElement', class {});
  for (const k of ['dispatchEvent', 'addEventListener', 'removeEventListener']) stub(k, noop);
  uPlot = (await import('uplot')).default;
});

afterAll(() => {
  for (const [k, d] of saved) {
    if (d) Object.defineProperty(globalThis, k, d);
    else delete G[k];
  }
});

/** uPlot applies scale changes in a microtask. */
const settle = () => new Promise((r) => setTimeout(r, 0));

/** A plot of one line with the old run's steps 1..80, then its data replaced as Reset and a new run do. */
async function ranges(x: uPlotType.Scale): Promise<number[][]> {
  const u = new uPlot(
    {
      width: 300,
      height: 130,
      legend: { show: false },
      cursor: { show: false },
      scales: { x, y: { range: [0, 1] } },
      series: [{}, { stroke: 'red' }],
    },
    [
      [1, 2, 40, 80],
      [0.1, 0.2, 0.3, 0.4],
    ],
  );
  const out: number[][] = [];
  const seen = async () => {
    await settle();
    out.push([u.scales.x.min!, u.scales.x.max!]);
  };
  await seen();
  u.setData([[], []]); // Reset: no points
  await seen();
  u.setData([
    [1, 2],
    [0.5, 0.6],
  ]); // the new run's first two steps
  await seen();
  u.destroy();
  return out;
}

describe('stepRange', () => {
  it("is the data's range, and 0..1 without data", () => {
    expect(stepRange(null, 1, 80)).toEqual([1, 80]);
    expect(stepRange(null, 0, 2)).toEqual([0, 2]);
    expect(stepRange(null, null, null)).toEqual([0, 1]);
  });

  it("on uPlot: a chart emptied by Reset spans 0..1, not the old run's steps 1..80", async () => {
    expect(await ranges({ time: false, range: stepRange })).toEqual([
      [1, 80],
      [0, 1],
      [1, 2],
    ]);
    // uPlot's own x range keeps the old run's steps while the chart is empty.
    expect(await ranges({ time: false })).toEqual([
      [1, 80],
      [1, 80],
      [1, 2],
    ]);
  });
});

describe('valueRange', () => {
  const nice = (lo: number, hi: number) => uPlot.rangeNum(lo, hi, 0.1, true) as [number, number];
  /** Teacher shares of a 2-step OPID run (B 1 × G 2) whose spread uPlot's nice range rounds away. */
  const SHARES = [0.9999999769201459, 0.9999999701907201];

  it('is [0, 1] without data, a ±10 % band for a flat line, and the nice range otherwise', () => {
    expect(valueRange(null, null, nice)).toEqual([0, 1]);
    expect(valueRange(2, 2, nice)).toEqual([1.8, 2.2]);
    expect(valueRange(0, 0, nice)).toEqual([0, 0.001]);
    expect(valueRange(-2, -2, nice)).toEqual([-2.2, -1.8]);
    expect(valueRange(0.2, 0.6, nice)).toEqual(nice(0.2, 0.6));
    expect(valueRange(0, 2.67e-6, nice)).toEqual(nice(0, 2.67e-6));
  });

  it('never goes below 0 for values that are all ≥ 0: a flat line at or near 0 gets [0, …]', () => {
    expect(valueRange(0, 0, nice)).toEqual([0, 0.001]);
    expect(valueRange(0.0005, 0.0005, nice)).toEqual([0, 0.0015]);
    expect(valueRange(0.1, 0.5, () => [-0.1, 0.6])).toEqual([0, 0.6]);
    expect(valueRange(-0.1, 0.5, () => [-0.2, 0.6])).toEqual([-0.2, 0.6]);
  });

  it("gives values a hair apart a band around their middle, where uPlot's nice range has zero width", () => {
    expect(nice(SHARES[1], SHARES[0])).toEqual([1, 1]);
    const mid = (SHARES[0] + SHARES[1]) / 2;
    expect(valueRange(SHARES[1], SHARES[0], nice)).toEqual([mid - mid * 0.1, mid + mid * 0.1]);
  });

  it('on uPlot: the y axis of those values gets the band and two ticks, not an endless list', async () => {
    const u = new uPlot(
      {
        width: 300,
        height: 130,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, range: stepRange }, y: { range: (_u, lo, hi) => valueRange(lo, hi, nice) } },
        series: [{}, { stroke: 'red' }],
      },
      [[1, 2], SHARES],
    );
    await settle();
    expect([u.scales.y.min, u.scales.y.max]).toEqual(valueRange(SHARES[1], SHARES[0], nice));
    // The y axis' tick values (uPlot keeps them on the axis; an endless list failed before it got here).
    const ticks = (u.axes[1] as { _splits?: number[] })._splits ?? [];
    expect(ticks).toEqual([0.9, 1]);
    u.destroy();
  });
});
