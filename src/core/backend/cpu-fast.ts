/**
 * Faster float32 kernels for tfjs' pure-JS `cpu` backend (tfjs 4.22), registered over the stock ones.
 *
 * The stock cpu kernels handle broadcasting by computing every element's multi-index with allocations
 * (`util.indexToLoc`), ~10× slower than a plain loop, and its Softmax is a chain of such ops. Measured here
 * (nano policy, attention [64,2,95,95]): mask add 103 ms, softmax 222 ms — half of a forward pass. These kernels
 * walk the output with an odometer instead (no per-element allocation) and give bit-identical results for
 * add/sub/mul/div (same float32 arithmetic per element); Softmax computes max, exp and sum per row in float32.
 * Other dtypes and shapes fall back to the stock kernel. Why: the CLI must train on `cpu` too.
 */
import * as tf from '../tf';
import { wrapStockKernel } from './register';

type TypedArray = Float32Array | Int32Array | Uint8Array;
interface CpuBackend {
  data: { get(id: object): { values: TypedArray } };
  makeTensorInfo(shape: number[], dtype: string, values?: TypedArray): tf.TensorInfo;
}
interface KernelArgs {
  inputs: Record<string, tf.TensorInfo>;
  backend: CpuBackend;
  attrs?: Record<string, unknown>;
}

let registered = false;

/** Output shape of broadcasting a and b (NumPy rules). */
function broadcastShape(a: number[], b: number[]): number[] | null {
  const n = Math.max(a.length, b.length),
    out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1,
      y = b[b.length - n + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) return null;
    out.push(Math.max(x, y));
  }
  return out;
}

/** Element strides of `shape` aligned to an output of rank n, with 0 on broadcast axes. */
function bStrides(shape: number[], out: number[]): number[] {
  const n = out.length,
    st = new Array<number>(n).fill(0);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const ax = n - shape.length + i;
    st[ax] = shape[i] === 1 && out[ax] !== 1 ? 0 : s;
    s *= shape[i];
  }
  return st;
}

/** The float32 broadcasting kernel `name` computing `op` per element, in front of the stock one. */
function binary(name: string, op: (x: number, y: number) => number): void {
  wrapStockKernel(name, 'cpu', (args: KernelArgs): tf.TensorInfo | null => {
    const { a, b } = args.inputs;
    const out = a.dtype === 'float32' && b.dtype === 'float32' ? broadcastShape(a.shape, b.shape) : null;
    if (!out) return null;
    const av = args.backend.data.get(a.dataId).values as Float32Array,
      bv = args.backend.data.get(b.dataId).values as Float32Array;
    const size = out.reduce((p, c) => p * c, 1);
    const res = new Float32Array(size);
    if (av.length === size && bv.length === size) for (let i = 0; i < size; i++) res[i] = op(av[i], bv[i]);
    else if (bv.length === 1) {
      const y = bv[0];
      for (let i = 0; i < size; i++) res[i] = op(av[i], y);
    } else if (av.length === 1) {
      const x = av[0];
      for (let i = 0; i < size; i++) res[i] = op(x, bv[i]);
    } else {
      const n = out.length,
        sa = bStrides(a.shape, out),
        sb = bStrides(b.shape, out);
      const idx = new Array<number>(n).fill(0);
      let ia = 0,
        ib = 0;
      const last = out[n - 1],
        la = sa[n - 1],
        lb = sb[n - 1];
      for (let i = 0; i < size; i += last) {
        for (let j = 0; j < last; j++) res[i + j] = op(av[ia + j * la], bv[ib + j * lb]);
        // advance the odometer over the leading axes
        for (let ax = n - 2; ax >= 0; ax--) {
          idx[ax]++;
          ia += sa[ax];
          ib += sb[ax];
          if (idx[ax] < out[ax]) break;
          ia -= sa[ax] * out[ax];
          ib -= sb[ax] * out[ax];
          idx[ax] = 0;
        }
      }
    }
    return args.backend.makeTensorInfo(out, 'float32', res);
  });
}

/** The last-axis float32 Softmax (max, exp and sum per row), in front of the stock one. */
function softmax(): void {
  wrapStockKernel('Softmax', 'cpu', (args: KernelArgs): tf.TensorInfo | null => {
    const x = args.inputs.logits;
    const dim = (args.attrs?.dim as number) ?? -1;
    if (x.dtype !== 'float32' || (dim !== -1 && dim !== x.shape.length - 1)) return null;
    const v = args.backend.data.get(x.dataId).values as Float32Array;
    const last = x.shape[x.shape.length - 1];
    const res = new Float32Array(v.length);
    const e = new Float32Array(last);
    for (let r = 0; r < v.length; r += last) {
      let m = -Infinity;
      for (let j = 0; j < last; j++) if (v[r + j] > m) m = v[r + j];
      let s = 0;
      for (let j = 0; j < last; j++) s += e[j] = Math.fround(Math.exp(v[r + j] - m));
      for (let j = 0; j < last; j++) res[r + j] = e[j] / s;
    }
    return args.backend.makeTensorInfo(x.shape, 'float32', res);
  });
}

/** Register the fast kernels once (idempotent). Call before using the `cpu` backend. */
export function registerFastCpuKernels(): void {
  if (registered) return;
  registered = true;
  binary('Add', (x, y) => x + y);
  binary('Sub', (x, y) => x - y);
  binary('Multiply', (x, y) => x * y);
  binary('RealDiv', (x, y) => x / y);
  softmax();
}
