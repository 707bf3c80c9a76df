/**
 * Kernels with several outputs for tfjs' webgpu backend (tfjs-backend-webgpu 4.22). A tfjs program writes one output
 * buffer and binds its inputs read-only, so an update that produces three tensors (Adam's weight, first and second
 * moment) would take three dispatches. A raw program here carries its own WGSL and pipeline and is recorded through
 * the backend's own `recordAndSubmit`, so it joins tfjs' command encoder, compute pass and submit batching in order
 * and is counted by backend/gpu-stats.ts like any tfjs dispatch (under its class name).
 *
 * Binding layout (what `recordAndSubmit` binds, in order): 0 = the first output, 1…k = the inputs, k+1…k+j = the
 * other outputs (bound as extra "inputs", declared `read_write` in the WGSL), then the uniform buffer. Every tensor is
 * bound as a flat 1-D array; tfjs fills the uniform buffer with NaN, Infinity, then the shape and strides of every
 * bound tensor (one i32 each for a 1-D view; tfjs writes 1 for the empty strides), then the program's own uniforms —
 * so
 * `uniformStruct` pads past tfjs' fields. Outputs are fresh buffers: no tensor's data is written in place.
 */
import * as tf from '../../tf';

/** A raw program as `recordAndSubmit` reads it (4.22): its pipeline, its dispatch, no pixel op and no size uniform. */
export interface RawProgram {
  pipeline: unknown;
  dispatch: [number, number, number];
}

/** The parts of tfjs' WebGPUBackend a raw program uses. */
interface RawBackend {
  device: {
    limits: { maxComputeWorkgroupsPerDimension: number; maxStorageBuffersPerShaderStage: number };
    createShaderModule(d: { code: string }): unknown;
    createComputePipeline(d: { layout: 'auto'; compute: { module: unknown; entryPoint: string } }): unknown;
  };
  makeTensorInfo(shape: number[], dtype: 'float32'): tf.TensorInfo;
  uploadToGPU(dataId: unknown): void;
  recordAndSubmit(
    program: RawProgram,
    output: tf.TensorInfo,
    inputs: tf.TensorInfo[],
    uniforms: { type: 'float32' | 'int32'; data: number[] }[],
  ): void;
}

const pipelines = new WeakMap<object, Map<string, unknown>>();

/** `backend`'s compiled pipeline for `wgsl` under `key` (compiled once per device and key). */
export function rawPipeline(backend: unknown, key: string, wgsl: () => string): unknown {
  const b = backend as RawBackend;
  let byKey = pipelines.get(b.device);
  if (!byKey) pipelines.set(b.device, (byKey = new Map()));
  let p = byKey.get(key);
  if (!p) {
    p = b.device.createComputePipeline({
      layout: 'auto',
      compute: { module: b.device.createShaderModule({ code: wgsl() }), entryPoint: 'main' },
    });
    byKey.set(key, p);
  }
  return p;
}

/** Storage buffers one stage may bind on `backend`'s device (8 unless the device asked for more). */
export function maxStorageBuffers(backend: unknown): number {
  return (backend as RawBackend).device.limits.maxStorageBuffersPerShaderStage;
}

/**
 * WGSL: the uniform struct `U` for `tensors` bound tensors (outputs and inputs together), tfjs' leading fields
 * padded over, then `own` (WGSL field lines of 4-byte scalars, e.g. 'lr : f32,').
 */
export function uniformStruct(tensors: number, own: string): string {
  const pad = Array.from({ length: 2 * tensors }, (_, i) => `tfjsShape${i} : i32,`).join(' ');
  return `struct U { tfjsNan : f32, tfjsInf : f32, ${pad} ${own} };`;
}

/** WGSL: the flat index of the invocation `gid` in a dispatch of `nwg` workgroups of `block` (x, then y). */
export function flatIndex(block: number): string {
  return `i32(gid.y * nwg.x * ${block}u + gid.x)`;
}

/** Workgroups [x, y, 1] covering `n` invocations in workgroups of `block` within the device's per-dimension limit. */
export function dispatchFor(backend: unknown, n: number, block: number): [number, number, number] {
  const groups = Math.max(1, Math.ceil(n / block));
  const max = (backend as RawBackend).device.limits.maxComputeWorkgroupsPerDimension;
  return groups <= max ? [groups, 1, 1] : [max, Math.ceil(groups / max), 1];
}

/** `t` viewed as a flat float32 vector (same data). */
export const flat = (t: tf.TensorInfo): tf.TensorInfo => ({
  dataId: t.dataId,
  shape: [t.shape.reduce((a, b) => a * b, 1)],
  dtype: t.dtype,
});

/**
 * Record `program` on `backend`: fresh float32 outputs of `outShapes` (first = binding 0, the rest after `inputs`),
 * every tensor bound flat, `own` uniforms after tfjs' fields. Returns the outputs under their shapes.
 */
export function runRaw(
  backend: unknown,
  program: RawProgram,
  inputs: tf.TensorInfo[],
  outShapes: number[][],
  own: { type: 'float32' | 'int32'; data: number[] }[],
): tf.TensorInfo[] {
  const b = backend as RawBackend;
  const outs = outShapes.map((s) => b.makeTensorInfo(s, 'float32'));
  for (const t of [...inputs, ...outs]) b.uploadToGPU(t.dataId);
  b.recordAndSubmit(program, flat(outs[0]), [...inputs, ...outs.slice(1)].map(flat), own);
  return outs;
}
