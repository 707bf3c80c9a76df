/**
 * Identity and same-dtype Cast on tfjs' wasm backend (tfjs 4.22) as references to the input's data instead of copies,
 * registered over the stock kernels by `registerWasmKernels` (wasm/kernels.ts).
 *
 * The stock kernels copy every element into a new heap buffer. tfjs' engine runs Identity for each tensor a gradient
 * saves (`saveTensorsForBackwardMode` clones it) and Cast for each `cast(x, 'float32')` a gradient makes of a float32
 * input (Multiply's, among others): in the `small` training step (B 32 × T 128) 260 Identity and 15 Cast calls,
 * ≈ 140 ms of CPU time per step (docs/experiments/speed.md). Here both return the input's data with its reference
 * count raised, as the wasm backend's own Reshape does and as tfjs' cpu backend does for Identity: no kernel of the
 * wasm backend or of this project writes into an existing tensor's data (every kernel writes a new output from
 * `makeOutput`; a variable's `assign` swaps its data for the new value's), so sharing the data is safe, and the
 * output is the input's words. A Cast to another dtype and string tensors run the stock kernels.
 */
import * as tf from '../../tf';
import { wrapStockKernel } from '../register';

interface AliasArgs {
  inputs: { x: tf.TensorInfo };
  backend: { incRef(dataId: object): void };
  attrs?: { dtype?: tf.DataType };
}

let enabled = true;

/**
 * Switch the aliasing kernels off (false: the stock copying Identity and Cast run) or back on, to compare the two in
 * one process (scripts/wasm-train-ab.ts). Returns the previous setting.
 */
export function setWasmAliasKernelsEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/** The input's data under a new reference (same shape and dtype), or null when the stock kernel should run. */
function alias(args: AliasArgs, dtype: tf.DataType): tf.TensorInfo | null {
  const { x } = args.inputs;
  if (!enabled || x.dtype === 'string' || dtype !== x.dtype) return null;
  args.backend.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
}

/**
 * Register the aliasing Identity and Cast over the stock kernels of the wasm backend (each falls back to the stock
 * kernel where it does not apply). Called by `registerWasmKernels` before `tf.setBackend('wasm')`; idempotent.
 */
export function registerWasmAliasKernels(): void {
  wrapStockKernel('Identity', 'wasm', (args: AliasArgs) => alias(args, args.inputs.x.dtype));
  wrapStockKernel('Cast', 'wasm', (args: AliasArgs) => alias(args, args.attrs?.dtype as tf.DataType));
}
