/**
 * Shared plumbing of the project's fused kernels for tfjs' webgpu backend (tfjs-backend-webgpu 4.22): the parts of
 * the backend they call, kernel registration, the row limit of one dispatch and WGSL snippets for workgroup
 * reductions. A kernel here is a tfjs program object (variableNames, outputShape, dispatch, workgroupSize, shaderKey,
 * getUserCode) run by the backend's `runWebGPUProgram`, so tfjs compiles, caches and records it like its own.
 *
 * Pipelines are cached by `shaderKey` plus the ranks and dtypes of the inputs (tfjs' makeShaderKey), not by sizes:
 * sizes reach the shader as uniforms (`uniforms.outShape`, `uniforms.xShape`, …), so a program's WGSL must not bake
 * in any size, and every variant that changes the WGSL must change `shaderKey`.
 */
import * as tf from '../../tf';
import { registerKernels } from '../register';

/** Invocations per workgroup of the row and column kernels (one workgroup per row or column). */
export const BLOCK = 64;

/** The fields of a tfjs webgpu program object that tfjs reads (4.22). */
export interface WebGpuProgram {
  variableNames: string[];
  outputShape: number[];
  dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number];
  shaderKey: string;
  /**
   * Extra uniform fields in WGSL struct syntax (e.g. 'scale : f32,'), filled from `runWebGPUProgram`'s 4th argument.
   */
  uniforms?: string;
  getUserCode(): string;
}

/** A program-defined uniform value (tfjs' ProgramUniform entry). */
export interface UniformValue {
  type: 'float32' | 'int32';
  data: number[];
}

/** The parts of tfjs' WebGPUBackend that the fused kernels call. */
export interface WebGpuRunner {
  runWebGPUProgram(
    program: WebGpuProgram,
    inputs: tf.TensorInfo[],
    dtype: 'float32',
    uniforms?: UniformValue[],
  ): tf.TensorInfo;
  device: { limits: { maxComputeWorkgroupsPerDimension: number } };
}

/** A kernel's inputs, attributes and backend, as tfjs passes them to a kernelFunc. */
export interface KernelArgs {
  inputs: tf.NamedTensorInfoMap;
  backend: unknown;
  attrs?: Record<string, unknown>;
}

/** Register `kernelFunc` as `name` for the webgpu backend unless it is registered already (idempotent). */
export function registerWebGpuKernel(name: string, kernelFunc: (args: KernelArgs) => tf.TensorInfo): void {
  registerKernels('webgpu', { [name]: kernelFunc });
}

/**
 * True when the active backend is webgpu and `groups` workgroups fit one dispatch dimension
 * (maxComputeWorkgroupsPerDimension, 65535 by default). False on every other backend.
 */
export function webGpuFits(groups: number): boolean {
  if (tf.getBackend() !== 'webgpu') return false;
  return groups <= (tf.backend() as unknown as WebGpuRunner).device.limits.maxComputeWorkgroupsPerDimension;
}

/** Run `program` on the backend of a kernel call, float32 output. */
export function runProgram(
  backend: unknown,
  program: WebGpuProgram,
  inputs: tf.TensorInfo[],
  uniforms?: UniformValue[],
): tf.TensorInfo {
  return (backend as WebGpuRunner).runWebGPUProgram(program, inputs, 'float32', uniforms);
}

/** `x` viewed as [rows, cols] (same data), cols its last dimension. */
export function asRows(x: tf.TensorInfo): tf.TensorInfo {
  const cols = x.shape[x.shape.length - 1];
  return { ...x, shape: [x.shape.reduce((a, b) => a * b, 1) / cols, cols] };
}

/** A program's output given back under `shape` (same data; sizes must agree). */
export function withShape(out: tf.TensorInfo, shape: number[]): tf.TensorInfo {
  return { dataId: out.dataId, shape, dtype: 'float32' };
}

/**
 * WGSL: tree-sum the workgroup arrays `bufs` (each `array<f32, BLOCK>`) in place into element 0. Every invocation
 * must reach it (it holds barriers); the sums run in a fixed order, so results are deterministic.
 */
export function treeSum(...bufs: string[]): string {
  return `
      for (var half = ${BLOCK / 2}; half > 0; half = half >> 1) {
        if (tid < half) { ${bufs.map((b) => `${b}[tid] = ${b}[tid] + ${b}[tid + half];`).join(' ')} }
        workgroupBarrier();
      }`;
}

/** WGSL: tree-max of the workgroup array `buf` in place into element 0 (same rules as `treeSum`). */
export function treeMax(buf: string): string {
  return `
      for (var half = ${BLOCK / 2}; half > 0; half = half >> 1) {
        if (tid < half) { ${buf}[tid] = max(${buf}[tid], ${buf}[tid + half]); }
        workgroupBarrier();
      }`;
}
