/**
 * Word-level tokenizer with byte fallback (docs/architecture.md).
 *
 * Text is split into pieces by `PIECE_RE` (a word, a number or one other character, each with an optional
 * leading space; or one whitespace character). A piece in the vocabulary is one token; any other piece is
 * encoded as its UTF-8 bytes, each a byte token. Every string therefore round-trips exactly:
 * `decode(encode(s)) === s` for any JavaScript string made of valid UTF-16 (lone surrogates become U+FFFD, as
 * in TextEncoder). Special tokens are never produced by `encode` (the literal text "<eos>" encodes as pieces).
 *
 * Ids: 0..S-1 special tokens, S..S+255 byte tokens, then vocabulary pieces in a deterministic order.
 */

/** Special tokens, in id order. `<pad>` is 0. Sections of the prompt (`src/core/rollout/prompt.ts`) have their own
 * markers. */
export const SPECIAL_TOKENS = [
  '<pad>',
  '<bos>',
  '<eos>',
  '<task>',
  '<obs>',
  '<act>',
  '<hist>',
  '<actions>',
  '<sep>',
  '<skill>',
  '<step_skill>',
  '<reserved1>',
  '<reserved2>',
  '<reserved3>',
  '<reserved4>',
  '<reserved5>',
] as const;
/** A special token's name. */
export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

/** Pre-tokenisation pattern: covers every character of any string, so splitting loses nothing. */
export const PIECE_RE = / ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]|\s/gsu;

/** Split text into pieces; `pieces(s).join('') === s`. */
export function pieces(text: string): string[] {
  return text.match(PIECE_RE) ?? [];
}

const enc = new TextEncoder();

/** Tokenizer over a fixed vocabulary. Construct with `Tokenizer.fromCorpus` or `Tokenizer.fromVocab`. */
export class Tokenizer {
  /** Token strings by id (special names, `<0xNN>` for bytes, then pieces). */
  readonly tokens: readonly string[];
  private readonly pieceToId: Map<string, number>;
  private readonly specialIds: Map<string, number>;
  /** Id of the first byte token. */
  readonly byteOffset = SPECIAL_TOKENS.length;

  private constructor(vocabPieces: readonly string[]) {
    const toks: string[] = [...SPECIAL_TOKENS];
    for (let b = 0; b < 256; b++) toks.push(`<0x${b.toString(16).padStart(2, '0').toUpperCase()}>`);
    this.pieceToId = new Map();
    for (const p of vocabPieces) {
      if (this.pieceToId.has(p)) throw new Error(`Tokenizer: duplicate piece ${JSON.stringify(p)}`);
      this.pieceToId.set(p, toks.length);
      toks.push(p);
    }
    this.tokens = toks;
    this.specialIds = new Map(SPECIAL_TOKENS.map((s, i) => [s, i]));
  }

  /**
   * Build a vocabulary from corpus text: every piece seen at least `minCount` times, ordered by count
   * (descending) then by code-unit order, capped at `maxPieces`. Deterministic for a given corpus.
   */
  static fromCorpus(corpus: readonly string[], opts: { minCount?: number; maxPieces?: number } = {}): Tokenizer {
    const minCount = opts.minCount ?? 1;
    const maxPieces = opts.maxPieces ?? 4096;
    const counts = new Map<string, number>();
    for (const line of corpus) for (const p of pieces(line)) counts.set(p, (counts.get(p) ?? 0) + 1);
    const kept = [...counts.entries()]
      .filter(([p, c]) => c >= minCount && enc.encode(p).length > 1) // single bytes are byte tokens already
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, maxPieces)
      .map(([p]) => p)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return new Tokenizer(kept);
  }

  /** Rebuild from a saved piece list (the `pieces` field of `toJSON`). */
  static fromVocab(vocabPieces: readonly string[]): Tokenizer {
    return new Tokenizer(vocabPieces);
  }

  /** Vocabulary size V (ids are 0..V-1). */
  get size(): number {
    return this.tokens.length;
  }

  /** Id of a special token. @throws Error on an unknown name. */
  special(name: SpecialToken): number {
    const id = this.specialIds.get(name);
    if (id === undefined) throw new Error(`Tokenizer: unknown special token ${name}`);
    return id;
  }

  /** True for special-token ids (never produced by `encode`). */
  isSpecial(id: number): boolean {
    return id >= 0 && id < SPECIAL_TOKENS.length;
  }

  /** Encode any string to token ids (int32 values in [0, V)). Lossless with `decode`. */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const p of pieces(text)) {
      const id = this.pieceToId.get(p);
      if (id !== undefined) out.push(id);
      else for (const b of enc.encode(p)) out.push(this.byteOffset + b);
    }
    return out;
  }

  /**
   * Decode ids to text. Special tokens are rendered as their names unless `skipSpecial`. @throws Error on an
   * out-of-range id.
   */
  decode(ids: ArrayLike<number>, opts: { skipSpecial?: boolean } = {}): string {
    let out = '';
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length) out += new TextDecoder().decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!Number.isInteger(id) || id < 0 || id >= this.tokens.length)
        throw new Error(`Tokenizer.decode: id ${id} out of range [0, ${this.tokens.length})`);
      if (id >= this.byteOffset && id < this.byteOffset + 256) {
        bytes.push(id - this.byteOffset);
        continue;
      }
      flush();
      if (this.isSpecial(id)) {
        if (!opts.skipSpecial) out += this.tokens[id];
      } else out += this.tokens[id];
    }
    flush();
    return out;
  }

  /** Display text of one token (bytes shown as `<0xNN>`). */
  tokenText(id: number): string {
    return this.tokens[id] ?? `<?${id}>`;
  }

  /** The vocabulary pieces (excluding specials and bytes), for saving. */
  vocabPieces(): string[] {
    return this.tokens.slice(this.byteOffset + 256) as string[];
  }
}

/** FNV-1a 64-bit hash (hex) of the vocabulary's token list: identifies a vocabulary in weights metadata. */
export function vocabHash(tok: Tokenizer): string {
  let h = 0xcbf29ce484222325n;
  const s = JSON.stringify(tok.tokens);
  for (let i = 0; i < s.length; i++) {
    h ^= BigInt(s.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}
