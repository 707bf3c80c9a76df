/**
 * A live chart's x (step) range after Reset: the run's steps are cleared, so each chart gets no points; its x axis
 * must start over instead of keeping the discarded run's steps (stepRange, src/ui/state/chart-data.ts, the x-scale
 * range of Chart.svelte). Checked on real uPlot, in Node with a minimal stand-in for the DOM and canvas it touches
 * (it draws nothing that is read here; only its scales are).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type uPlotType from 'uplot';
import { stepRange } from '../../src/ui/state/chart-data';

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
