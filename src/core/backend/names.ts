/**
 * tfjs backend names a run may ask for (RunConfig.backend). `auto` means webgpu → webgl → wasm → cpu in the page
 * (the first that initialises) and wasm in Node. Same backend ⇒ the same run, bit for bit; backends differ in float
 * rounding, so runs on different backends are not identical.
 */
export const BACKENDS = ['auto', 'webgpu', 'webgl', 'wasm', 'cpu'] as const;
/** One of BACKENDS. */
export type BackendName = (typeof BACKENDS)[number];

/**
 * The concrete tfjs backends (BACKENDS less `auto`), in the order `auto` tries them in the page; the probe and the
 * Bench view go through them in this order too.
 */
export const CONCRETE_BACKENDS = ['webgpu', 'webgl', 'wasm', 'cpu'] as const satisfies readonly BackendName[];
/** One of CONCRETE_BACKENDS. */
export type ConcreteBackend = (typeof CONCRETE_BACKENDS)[number];
