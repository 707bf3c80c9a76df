/**
 * Kernel registration shared by the backend folders (wasm/, webgpu/, cpu-fast.ts): the project's own kernels under
 * their names, and fast paths put in front of a stock tfjs kernel, which still runs wherever the fast path declines.
 * Both are idempotent, so a backend may be set up more than once.
 */
import * as tf from '../tf';

/**
 * A kernel function as a kernel file writes it, with its own typed arguments (any such function is one: `never`
 * stands for "whatever tfjs passes"); tfjs calls it with the backend's.
 */
type KernelFn = (args: never) => unknown;

/**
 * Register each of `kernels` (kernel name → kernel function, no set-up function) for `backendName`, leaving a name
 * that is registered there already as it is.
 */
export function registerKernels(backendName: string, kernels: Readonly<Record<string, KernelFn>>): void {
  for (const [kernelName, fn] of Object.entries(kernels))
    if (!tf.getKernel(kernelName, backendName))
      tf.registerKernel({ kernelName, backendName, kernelFunc: fn as unknown as tf.KernelFunc });
}

/** Marks a kernel function made by `wrapStockKernel`, so a second call leaves it alone. */
const WRAPPED = Symbol('opd-playground fast path');

/**
 * Put `fast` in front of the stock kernel `kernelName` of `backendName`: the kernel registered in its place returns
 * `fast(args)` unless that is null, else the stock kernel's result, and keeps the stock set-up function. Does nothing
 * when the backend has no such kernel (not in this bundle) or it is wrapped already.
 */
export function wrapStockKernel<A>(
  kernelName: string,
  backendName: string,
  fast: (args: A) => tf.TensorInfo | null,
): void {
  const stock = tf.getKernel(kernelName, backendName);
  if (!stock || Object.hasOwn(stock.kernelFunc, WRAPPED)) return;
  const stockFunc = stock.kernelFunc as unknown as (args: A) => tf.TensorInfo;
  const fn = Object.assign((args: A) => fast(args) ?? stockFunc(args), { [WRAPPED]: true });
  tf.unregisterKernel(kernelName, backendName); // replaced on purpose (registering over it would warn)
  const kernelFunc = fn as unknown as tf.KernelFunc;
  tf.registerKernel({ kernelName, backendName, setupFunc: stock.setupFunc, kernelFunc });
}
