/**
 * A safetensors header is untrusted input: `decodeSafetensors` checks it field by field and names the tensor, the
 * broken rule and the fix. Valid bytes come from the module's own writer (a tiny 4-tensor set), then are corrupted.
 */
import { describe, expect, it } from 'vitest';
import { checkWeights, decodeSafetensors, encodeSafetensors } from '../../../src/core/model/io';
import { modelConfig, type ModelConfig } from '../../../src/core/model/config';
import { paramShapes } from '../../../src/core/model/params';

/** wte [3,2] → [0,24], wpe [2,2] → [24,40], lnf.g [2] → [40,48], lnf.b [2] → [48,56]; data section 56 bytes. */
const CFG: ModelConfig = { vocabSize: 3, dModel: 2, nLayers: 0, nHeads: 1, maxSeq: 2 };
const META = {
  format: 'opd-playground',
  modelSize: 'nano',
  envVersions: JSON.stringify({ household: 'household-v2' }),
};
const CORRUPT = 'the file is corrupt — re-save it with train --save';

function valuesFor(cfg: ModelConfig): Map<string, Float32Array> {
  const m = new Map<string, Float32Array>();
  let k = 0;
  for (const [name, shape] of paramShapes(cfg))
    m.set(
      name,
      Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => (k++ % 7) * 0.25 - 0.5),
    );
  return m;
}

const VALID = encodeSafetensors(CFG, valuesFor(CFG), META);

/** A parsed header: each tensor's entry (and __metadata__) by name, its fields untyped for a test to break them. */
type Header = Record<string, Record<string, unknown>>;

/** The header (parsed) and data section of safetensors bytes. */
function split(bytes: Uint8Array): { header: Header; data: Uint8Array } {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.slice(8 + n) };
}

/** Bytes with header text `json` (a string, used as is) and data section `data`. */
function join(json: string, data: Uint8Array, lengthPrefix?: bigint): Uint8Array {
  const h = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, lengthPrefix ?? BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

/** VALID with its header changed by `edit` (which may mutate the header or return a replacement). */
function corrupt(edit: (h: Header) => unknown): Uint8Array {
  const { header, data } = split(VALID);
  const r = edit(header);
  return join(JSON.stringify(r === undefined ? header : r), data);
}

const decode = (b: Uint8Array) => () => decodeSafetensors(b);

describe('decodeSafetensors: valid files', () => {
  it("round-trips the writer's bytes exactly (values, shapes, metadata)", () => {
    const w = decodeSafetensors(VALID);
    const want = valuesFor(CFG);
    expect([...w.values.keys()]).toEqual([...want.keys()]);
    for (const [k, v] of want) expect(w.values.get(k), k).toEqual(v);
    expect(Object.fromEntries(w.shapes)).toEqual(Object.fromEntries(paramShapes(CFG)));
    expect(w.meta).toEqual(META);
  });

  it('reads a file without __metadata__, and a zero-size tensor', () => {
    const w = decodeSafetensors(
      corrupt((h) => {
        delete h.__metadata__;
        h.empty = { dtype: 'F32', shape: [0, 4], data_offsets: [56, 56] };
      }),
    );
    expect(w.meta).toEqual({});
    expect(w.values.get('empty')).toEqual(new Float32Array(0));
  });

  it('checkWeights accepts a full nano set from the writer', () => {
    const cfg = modelConfig('nano', 5);
    const w = decodeSafetensors(encodeSafetensors(cfg, valuesFor(cfg), { modelSize: 'nano', vocabHash: 'h' }));
    expect(checkWeights(w, { vocabSize: 5, vocabHash: 'h' })).toEqual(cfg);
  });
});

describe('decodeSafetensors: corrupt headers are refused with the tensor, the rule and the fix', () => {
  it('too short', () => {
    expect(decode(new Uint8Array(5))).toThrow(
      'weights file is 5 bytes: too short to be safetensors; the file is corrupt or not safetensors — ' +
        're-save it with train --save',
    );
    // 8 and 9 bytes: a header length, then no room for a header (the smallest, `{}`, makes 10 bytes): not "must be
    // 2..0".
    const json = new TextEncoder().encode('{"a":1}\n'); // 8 bytes of JSON given as weights
    expect(decode(json)).toThrow(
      'weights file is 8 bytes: too short to be safetensors; the file is corrupt or not safetensors — ' +
        're-save it with train --save',
    );
    expect(decode(new Uint8Array(9))).toThrow(
      'weights file is 9 bytes: too short to be safetensors; the file is corrupt or not safetensors — ' +
        're-save it with train --save',
    );
    // 10 bytes: header length 2 and the header {} is a well-formed (empty) file; no "too short".
    expect(decode(Uint8Array.of(2, 0, 0, 0, 0, 0, 0, 0, 0x7b, 0x7d))).not.toThrow(/too short/);
  });

  it('header length beyond the file (and a u64 beyond 2^53)', () => {
    const { data } = split(VALID);
    const h = JSON.stringify(split(VALID).header);
    const size = 8 + new TextEncoder().encode(h).length + data.length;
    expect(decode(join(h, data, 100000n))).toThrow(
      `weights file: header length 100000 (the first 8 bytes, little-endian) must be 2..${size - 8} to ` +
        `fit in the file's ${size} bytes; the file is corrupt or not safetensors — re-save it with train ` +
        `--save`,
    );
    expect(decode(join(h, data, 2n ** 63n))).toThrow(
      /^weights file: header length 9223372036854775808 \(the first 8 bytes, little-endian\) must be 2\.\.\d+ to fit/,
    );
    expect(decode(join(h, data, 0n))).toThrow(/header length 0 /);
  });

  it('header that is not JSON', () => {
    expect(decode(join('{"a": ', new Uint8Array(0)))).toThrow(
      'weights file: header is not valid UTF-8 JSON; the file is corrupt or not safetensors — re-save ' +
        'it with train --save',
    );
  });

  it('null header', () => {
    expect(decode(join('null', new Uint8Array(0)))).toThrow(
      'weights file: header must be a JSON object {tensor name: {dtype, shape, data_offsets}, ' +
        '__metadata__?: {…}}, got null; the file is corrupt or not safetensors — re-save it with train ' +
        '--save',
    );
  });

  it('array header', () => {
    expect(decode(corrupt((h) => [h]))).toThrow(
      /^weights file: header must be a JSON object .*, got an array; the file is corrupt or not safetensors/,
    );
  });

  it('tensor entry that is null', () => {
    expect(decode(corrupt((h) => ({ ...h, wpe: null })))).toThrow(
      `weights file: tensor "wpe": entry must be an object {dtype, shape, data_offsets}, got null; ${CORRUPT}`,
    );
  });

  it('missing data_offsets', () => {
    expect(decode(corrupt((h) => void delete h.wpe.data_offsets))).toThrow(
      `weights file: tensor "wpe": missing data_offsets (each tensor needs dtype, shape and data_offsets); ${CORRUPT}`,
    );
  });

  it('negative data_offsets (would read header bytes)', () => {
    expect(decode(corrupt((h) => void (h.wpe.data_offsets = [-8, 8])))).toThrow(
      `weights file: tensor "wpe": data_offsets [-8,8] must be [begin, end], non-negative integers inside ` +
        `the data section (0..56 bytes); ${CORRUPT}`,
    );
  });

  it('non-integer or malformed data_offsets', () => {
    expect(decode(corrupt((h) => void (h.wpe.data_offsets = [24.5, 40])))).toThrow(
      /^weights file: tensor "wpe": data_offsets \[24\.5,40\] must be \[begin, end\], non-negative integers/,
    );
    expect(decode(corrupt((h) => void (h.wpe.data_offsets = [24, 40, 56])))).toThrow(
      /^weights file: tensor "wpe": data_offsets \[24,40,56\] must be \[begin, end\]/,
    );
    expect(decode(corrupt((h) => void (h.wpe.data_offsets = '24-40')))).toThrow(
      /^weights file: tensor "wpe": data_offsets "24-40" must be \[begin, end\]/,
    );
  });

  it('end beyond the data section', () => {
    expect(decode(corrupt((h) => void (h['lnf.b'].data_offsets = [56, 64])))).toThrow(
      `weights file: tensor "lnf.b": data_offsets [56, 64] must have begin ≤ end ≤ the data section's ` +
        `length (56 bytes); ${CORRUPT}`,
    );
  });

  it('begin > end', () => {
    expect(decode(corrupt((h) => void (h.wpe.data_offsets = [40, 24])))).toThrow(
      `weights file: tensor "wpe": data_offsets [40, 24] must have begin ≤ end ≤ the data section's ` +
        `length (56 bytes); ${CORRUPT}`,
    );
  });

  it('overlapping tensors', () => {
    expect(decode(corrupt((h) => void (h.wpe.data_offsets = [16, 32])))).toThrow(
      `weights file: tensor "wpe": data_offsets [16, 32] overlap tensor "wte"'s [0, 24] (tensors must not ` +
        `share bytes); ${CORRUPT}`,
    );
  });

  it(
    "a tensor name given twice in the header (JSON keeps the last entry): the first entry's bytes belong " +
      'to no tensor',
    () => {
      const { header, data } = split(VALID);
      const extra = new Uint8Array(data.length + 24);
      extra.set(data);
      const json = JSON.stringify(header).replace(/}$/, ',"wte":{"dtype":"F32","shape":[3,2],"data_offsets":[56,80]}}');
      expect(json.match(/"wte"/g)).toHaveLength(2);
      expect(decode(join(json, extra))).toThrow(
        `weights file: bytes 0..24 of the data section belong to no tensor (a tensor name given twice in ` +
          `the header keeps only its last entry); ${CORRUPT}`,
      );
    },
  );

  it('byte length that does not match the shape', () => {
    expect(decode(corrupt((h) => void (h.wpe.shape = [2, 3])))).toThrow(
      `weights file: tensor "wpe": data_offsets [24, 40] hold 16 bytes, but shape [2,3] of F32 needs 24 ` +
        `bytes; ${CORRUPT}`,
    );
  });

  it('non-integer or negative shape', () => {
    expect(decode(corrupt((h) => void (h.wpe.shape = [2, 2.5])))).toThrow(
      `weights file: tensor "wpe": shape [2,2.5] must be an array of non-negative integers; ${CORRUPT}`,
    );
    expect(decode(corrupt((h) => void (h.wpe.shape = [-2, -2])))).toThrow(
      `weights file: tensor "wpe": shape [-2,-2] must be an array of non-negative integers; ${CORRUPT}`,
    );
    expect(decode(corrupt((h) => void (h.wpe.shape = '2x2')))).toThrow(
      `weights file: tensor "wpe": shape "2x2" must be an array of non-negative integers; ${CORRUPT}`,
    );
  });

  it('unknown or malformed dtype', () => {
    expect(decode(corrupt((h) => void (h.wpe.dtype = 'F16')))).toThrow(
      'weights file: tensor "wpe": dtype "F16" is not supported (supported: F32); convert the tensor to ' +
        'F32 or re-save it with train --save',
    );
    expect(decode(corrupt((h) => void (h.wpe.dtype = 'constructor')))).toThrow(
      /^weights file: tensor "wpe": dtype "constructor" is not supported \(supported: F32\)/,
    );
    expect(decode(corrupt((h) => void (h.wpe.dtype = 4)))).toThrow(
      `weights file: tensor "wpe": dtype 4 must be a string naming a supported dtype (supported: F32); ${CORRUPT}`,
    );
  });

  it('metadata that is not an object of strings', () => {
    expect(decode(corrupt((h) => void (h.__metadata__.step = 3)))).toThrow(
      `weights file: __metadata__ "step" is 3; metadata values must be strings; ${CORRUPT}`,
    );
    expect(decode(corrupt((h) => ({ ...h, __metadata__: null })))).toThrow(
      `weights file: __metadata__ must be an object of string values, got null; ${CORRUPT}`,
    );
    expect(decode(corrupt((h) => ({ ...h, __metadata__: ['nano'] })))).toThrow(
      `weights file: __metadata__ must be an object of string values, got ["nano"]; ${CORRUPT}`,
    );
  });

  it('__proto__ as a tensor name is an ordinary name: validated, never a prototype', () => {
    // JSON text with a literal "__proto__" key (JSON.parse makes it an own property).
    const { header, data } = split(VALID);
    const text = (entry: unknown) => JSON.stringify(header).replace(/^\{/, `{"__proto__":${JSON.stringify(entry)},`);
    expect(decode(join(text({ dtype: 'F32', shape: [2], data_offsets: [-8, 0] }), data))).toThrow(
      `weights file: tensor "__proto__": data_offsets [-8,0] must be [begin, end], non-negative integers ` +
        `inside the data section (0..56 bytes); ${CORRUPT}`,
    );
    expect(decode(join(text({ dtype: 'F32', shape: [2] }), data))).toThrow(
      `weights file: tensor "__proto__": missing data_offsets`,
    );
    expect(decode(join(text(null), data))).toThrow(`weights file: tensor "__proto__": entry must be an object`);
    const w = decodeSafetensors(join(text({ dtype: 'F32', shape: [0], data_offsets: [56, 56] }), data));
    expect(w.shapes.get('__proto__')).toEqual([0]);
    expect(({} as Record<string, unknown>).dtype).toBeUndefined();
    // Inherited names are not fields: an entry without its own data_offsets is refused even via `constructor`.
    expect(decode(corrupt((h) => void (h['constructor' as string] = { dtype: 'F32', shape: [0] })))).toThrow(
      `weights file: tensor "constructor": missing data_offsets`,
    );
  });

  it('checkWeights refuses a tensor the model does not have (even "__proto__")', () => {
    const cfg = modelConfig('nano', 5);
    const good = encodeSafetensors(cfg, valuesFor(cfg), { modelSize: 'nano', vocabHash: 'h' });
    const { header, data } = split(good);
    const w = decodeSafetensors(
      join(
        JSON.stringify(header).replace(/^\{/, '{"__proto__":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},'),
        data,
      ),
    );
    expect(() => checkWeights(w, { vocabSize: 5, vocabHash: 'h' })).toThrow(
      'weights file: tensor "__proto__" is not a parameter of model nano; the file is not from this ' +
        "version — use weights written by this version's train --save",
    );
  });

  it(
    'trailing bytes after the last tensor, a foreign format and a vocabSize that is not this vocabulary ' +
      'are refused',
    () => {
      const { header, data } = split(VALID);
      const extra = new Uint8Array(data.length + 12);
      extra.set(data);
      expect(decode(join(JSON.stringify(header), extra))).toThrow(
        `weights file: 12 bytes after the last tensor (data section 68 bytes, tensors end at 56); ${CORRUPT}`,
      );
      const cfg = modelConfig('nano', 5);
      const make = (meta: Record<string, string>) =>
        decodeSafetensors(encodeSafetensors(cfg, valuesFor(cfg), { modelSize: 'nano', vocabHash: 'h', ...meta }));
      expect(() => checkWeights(make({ format: 'other' }), { vocabSize: 5, vocabHash: 'h' })).toThrow(
        'weights file: metadata format "other" is not "opd-playground"; use weights written by train --save ' +
          'or downloaded from the page',
      );
      expect(() => checkWeights(make({ vocabSize: '999' }), { vocabSize: 5, vocabHash: 'h' })).toThrow(
        'weights file: metadata vocabSize "999" differs from this code\'s vocabulary of 5 tokens; retrain ' +
          'or regenerate the weights with this version',
      );
      expect(
        checkWeights(make({ format: 'opd-playground', vocabSize: '5' }), { vocabSize: 5, vocabHash: 'h' }),
      ).toEqual(cfg);
    },
  );

  it('unknown model size, whatever the string', () => {
    for (const s of ['huge', 'constructor', 'toString', '__proto__', 'hasOwnProperty', ''])
      expect(decode(corrupt((h) => void (h.__metadata__.modelSize = s))), s).toThrow(
        `weights file: unknown model size ${JSON.stringify(s)} (known: nano, nano-deep, small, base); the weights ` +
          `are from another version — use weights written by this version's train --save`,
      );
    // checkWeights on hand-made metadata too (not through decode).
    const w = decodeSafetensors(VALID);
    expect(() => checkWeights({ ...w, meta: { modelSize: 'constructor' } }, { vocabSize: 3, vocabHash: 'h' })).toThrow(
      'unknown model size "constructor" (known: nano, nano-deep, small, base)',
    );
    expect(() => checkWeights({ ...w, meta: {} }, { vocabSize: 3, vocabHash: 'h' })).toThrow(
      'weights file: metadata has no modelSize',
    );
  });

  it('unknown env names in metadata', () => {
    for (const s of ['kitchen', 'constructor', '__proto__', 'toString'])
      expect(decode(corrupt((h) => void (h.__metadata__.env = s))), s).toThrow(
        `weights file: metadata env: unknown env ${JSON.stringify(s)} (known: household, shop, searchqa); the ` +
          `weights are from another version — use weights written by this version's train --save`,
      );
    expect(decode(corrupt((h) => void (h.__metadata__.envVersions = '{"constructor":"v1"}')))).toThrow(
      'weights file: metadata envVersions: unknown env "constructor" (known: household, shop, searchqa)',
    );
    expect(decode(corrupt((h) => void (h.__metadata__.envVersions = '{"__proto__":"v1"}')))).toThrow(
      'weights file: metadata envVersions: unknown env "__proto__" (known: household, shop, searchqa)',
    );
    expect(decode(corrupt((h) => void (h.__metadata__.envVersions = '[1]')))).toThrow(
      `weights file: metadata envVersions "[1]" must be a JSON object {env name: version string}; ${CORRUPT}`,
    );
  });
});
