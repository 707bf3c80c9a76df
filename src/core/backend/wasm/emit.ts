/**
 * A minimal WebAssembly binary writer: just enough of the format (WebAssembly Core Specification 2.0, §5 "Binary
 * Format", with the fixed-width SIMD opcodes) to build the small kernels of `wasm/batch-matmul.ts` at run time,
 * without a toolchain or a checked-in binary. A module here imports one linear memory (`env.mem`: the tfjs wasm
 * backend's heap) and exports functions whose parameters and locals are i32, f32 or v128.
 */

/** Value types (§5.3.1). */
export const I32 = 0x7f,
  F32 = 0x7d,
  V128 = 0x7b;
/** A value type byte: I32, F32 or V128. */
export type ValType = typeof I32 | typeof F32 | typeof V128;

/** Opcodes used by the kernels (§5.4). SIMD ones are written with `simd(op)` after the 0xfd prefix. */
export const Op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  call: 0x10,
  select: 0x1b,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  f32Load: 0x2a,
  i32Store: 0x36,
  f32Store: 0x38,
  i32Const: 0x41,
  f32Const: 0x43,
  i32Eqz: 0x45,
  i32LtU: 0x49,
  i32GtU: 0x4b,
  i32LeU: 0x4d,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  f32Add: 0x92,
  f32Mul: 0x94,
} as const;
/** SIMD opcodes (after the 0xfd prefix; LEB128 u32). */
export const SimdOp = {
  v128Load: 0x00,
  load32Splat: 0x09,
  v128Store: 0x0b,
  f32x4Splat: 0x13,
  f32x4Add: 0xe4,
  f32x4Mul: 0xe6,
} as const;

/** Unsigned LEB128 bytes of a non-negative integer < 2³². */
export function uleb(n: number): number[] {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`uleb: ${n} is not a u32`);
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** Signed LEB128 bytes of an integer in the i32 range. */
export function sleb(n: number): number[] {
  if (!Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff) throw new Error(`sleb: ${n} is not an i32`);
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** A function body under construction: locals (after the parameters) and instruction bytes. */
export class FuncBuilder {
  readonly code: number[] = [];
  private readonly locals: ValType[] = [];
  constructor(
    readonly params: ValType[],
    readonly results: ValType[] = [],
  ) {}

  /** Declare a local of type `t`; returns its index (parameters come first). */
  local(t: ValType): number {
    this.locals.push(t);
    return this.params.length + this.locals.length - 1;
  }
  /** Append raw instruction bytes. */
  op(...bytes: number[]): this {
    this.code.push(...bytes);
    return this;
  }
  get(i: number): this {
    return this.op(Op.localGet, ...uleb(i));
  }
  set(i: number): this {
    return this.op(Op.localSet, ...uleb(i));
  }
  i32(n: number): this {
    return this.op(Op.i32Const, ...sleb(n));
  }
  /** A SIMD instruction; `memOffset` given for the memory ones (alignment hint 4 bytes, always valid). */
  simd(op: number, memOffset?: number): this {
    this.op(0xfd, ...uleb(op));
    if (memOffset !== undefined) this.op(2, ...uleb(memOffset));
    return this;
  }
  /** A scalar memory instruction (f32/i32 load or store) with alignment hint 4 bytes and a constant offset. */
  mem(op: number, memOffset = 0): this {
    return this.op(op, 2, ...uleb(memOffset));
  }
  /** `local[i] += delta` for an i32 local and an i32 local `delta`. */
  addTo(i: number, delta: number): this {
    return this.get(i).get(delta).op(Op.i32Add).set(i);
  }

  /** The function's code entry (§5.5.13): locals grouped by type, then the body and `end`. */
  encode(): number[] {
    const groups: [number, ValType][] = [];
    for (const t of this.locals) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    const body = [...uleb(groups.length), ...groups.flatMap(([n, t]) => [...uleb(n), t]), ...this.code, Op.end];
    return [...uleb(body.length), ...body];
  }
}

function section(id: number, payload: number[]): number[] {
  return [id, ...uleb(payload.length), ...payload];
}
function name(s: string): number[] {
  const b = [...new TextEncoder().encode(s)];
  return [...uleb(b.length), ...b];
}

/** Emit `while (i < n) { body; i++ }` over the i32 locals i and n of `f` (i reset to 0 first). */
export function emitLoop(f: FuncBuilder, i: number, n: number, body: () => void): void {
  f.i32(0).set(i);
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(i).get(n).op(Op.i32GeU, Op.brIf, 1);
  body();
  f.get(i).i32(1).op(Op.i32Add).set(i);
  f.op(Op.br, 0, Op.end, Op.end);
}

/** Emit local[p] += k (an i32 constant; a byte address moving on by k bytes). */
export function emitBump(f: FuncBuilder, p: number, k: number): void {
  f.get(p).i32(k).op(Op.i32Add).set(p);
}

/**
 * Encode a module importing memory `env.mem` (shared or not, as the memory it will be given: a shared memory's
 * import must be declared shared, with a maximum no smaller than the memory's; 65536 pages is wasm32's limit) and
 * exporting `funcs` under `exports` (name → function index; indices follow the order of `funcs`).
 */
export function encodeModule(
  funcs: FuncBuilder[],
  exports: Record<string, number>,
  sharedMemory: boolean,
): Uint8Array<ArrayBuffer> {
  const sigs: string[] = [];
  const typeOf = funcs.map((f) => {
    const key = JSON.stringify([f.params, f.results]);
    if (!sigs.includes(key)) sigs.push(key);
    return sigs.indexOf(key);
  });
  const types = sigs.flatMap((k) => {
    const [p, r] = JSON.parse(k) as [number[], number[]];
    return [0x60, ...uleb(p.length), ...p, ...uleb(r.length), ...r];
  });
  const limits = sharedMemory ? [0x03, ...uleb(1), ...uleb(65536)] : [0x00, ...uleb(1)];
  const names = Object.keys(exports);
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [...uleb(sigs.length), ...types]),
    ...section(2, [...uleb(1), ...name('env'), ...name('mem'), 0x02, ...limits]),
    ...section(3, [...uleb(funcs.length), ...typeOf.flatMap((t) => uleb(t))]),
    ...section(7, [...uleb(names.length), ...names.flatMap((n) => [...name(n), 0x00, ...uleb(exports[n])])]),
    ...section(10, [...uleb(funcs.length), ...funcs.flatMap((f) => f.encode())]),
  ];
  return new Uint8Array(bytes);
}

/**
 * Instantiation of a generated module over a heap, once per memory: `funcs()` encoded with `exports`
 * (`encodeModule`, importing `mem` as shared when it is) and instantiated with `env.mem` = that memory. The returned
 * function gives the module's exports, or null where the engine does not validate the module (no WebAssembly SIMD).
 */
export function moduleOver<T>(
  funcs: () => FuncBuilder[],
  exports: Record<string, number>,
): (mem: WebAssembly.Memory) => T | null {
  const modules = new WeakMap<WebAssembly.Memory, T | null>();
  return (mem) => {
    if (modules.has(mem)) return modules.get(mem) ?? null;
    const shared = typeof SharedArrayBuffer !== 'undefined' && mem.buffer instanceof SharedArrayBuffer;
    const bytes = encodeModule(funcs(), exports, shared);
    const mod = WebAssembly.validate(bytes)
      ? (new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { mem } }).exports as unknown as T)
      : null;
    modules.set(mem, mod);
    return mod;
  };
}
