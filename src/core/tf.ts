/**
 * The one place the core gets tfjs from. Importing the `@tensorflow/tfjs` union package registers every
 * gradient (tfjs-core alone registers none in its Node bundle: "gradient function not found for Neg") and the
 * cpu backend; the other backends (wasm, webgl, webgpu) are registered by the worker or the CLI.
 */
import '@tensorflow/tfjs';
export * from '@tensorflow/tfjs-core';
