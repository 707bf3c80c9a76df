/**
 * Prefix trie over admissible actions' token sequences, for `admissible` decoding: the allowed next
 * tokens after a prefix are the children of the prefix's node, plus <eos> when the prefix is a whole action.
 *
 * Free-text slots: an admissible action that ends in an unclosed `[` (e.g. shop's `search[`, WebShop's
 * `search[keywords]`, Yao et al. 2022) is a prefix, not a whole action (`isOpenAction`). With `slot` given, once a
 * sampled prefix has run through such an entry, any token of `slot.free` may follow until a `slot.close` token (`]`);
 * after it only <eos>. The close is not allowed before a token of text that is not blank, so greedy (or any) decoding
 * never sends an empty form such as `search[]` or `search[ ]` (an action that does nothing). Without `slot`, the entry
 * is an ordinary whole action.
 */

import type { Tokenizer } from '../tokenizer/tokenizer';
import { actionTokens } from './prompt';
import { isOpenAction } from '../envs/types';

interface Node {
  children: Map<number, Node>;
  terminal: boolean;
  /** The end of an open action's prefix: free text follows. */
  open: boolean;
}

/** The token sets of a free-text slot (see the module comment). */
export interface FreeTextSlot {
  /** Token ids free text may use (ascending): the vocabulary's word, number and punctuation pieces, no brackets. */
  free: Int32Array;
  /** free ∪ close, ascending: one shared array, since the sampler keeps every token's allowed set. */
  inside: Int32Array;
  /** Token ids that close the slot (`]`, ` ]`). */
  close: ReadonlySet<number>;
  /** The tokens of `free` whose text is whitespace only (the space byte, pieces of spaces): no text yet. */
  blank: ReadonlySet<number>;
}

/**
 * The free-text slot of a tokenizer: free = every vocabulary piece without a bracket, and the byte tokens of
 * printable ASCII (0x20–0x7E) but `[` and `]` (one-character pieces are byte tokens, tokenizer/tokenizer.ts); close =
 * the byte token of `]` and the piece ` ]` when the vocabulary has it; blank = the free tokens of whitespace only.
 * Special tokens are never free.
 */
export function freeTextSlot(tok: Tokenizer): FreeTextSlot {
  const known = SLOTS.get(tok);
  if (known) return known;
  const free: number[] = [];
  const close = new Set<number>([tok.byteOffset + 0x5d]);
  for (let b = 0x20; b <= 0x7e; b++) if (b !== 0x5b && b !== 0x5d) free.push(tok.byteOffset + b);
  for (let id = tok.byteOffset + 256; id < tok.size; id++) {
    const text = tok.tokens[id];
    if (text === ' ]') close.add(id);
    else if (!text.includes('[') && !text.includes(']')) free.push(id);
  }
  const inside = Int32Array.from([...free, ...close].sort((a, b) => a - b));
  const blank = new Set(free.filter((id) => tok.decode([id]).trim() === ''));
  const slot = { free: Int32Array.from(free), close, inside, blank };
  SLOTS.set(tok, slot);
  return slot;
}

/** Each tokenizer's slot, computed once (a tokenizer never changes). */
const SLOTS = new WeakMap<Tokenizer, FreeTextSlot>();

/**
 * The trie `admissible` decoding samples a turn's action from (rollout, pretraining demonstrations, the page's act
 * panel): the admissible actions' tokens ␣a, an open action (`search[`) taking free text up to `]`.
 * @param admissible the turn's admissible actions (normalised, the env's order).
 */
export function admissibleTrie(tok: Tokenizer, admissible: readonly string[]): ActionTrie {
  return new ActionTrie(
    admissible.map((x) => actionTokens(tok, x)),
    tok.special('<eos>'),
    admissible.map(isOpenAction),
    freeTextSlot(tok),
  );
}

/** Trie of token sequences. */
export class ActionTrie {
  private root: Node = { children: new Map(), terminal: false, open: false };

  /**
   * @param sequences token ids of each admissible action (without <eos>).
   * @param eos the end token id.
   * @param opens for each sequence, whether it is an open action's prefix (`isOpenAction`); default none.
   * @param slot the free-text token sets; required for an open entry to take free text.
   */
  constructor(
    sequences: readonly (readonly number[])[],
    private readonly eos: number,
    opens: readonly boolean[] = [],
    private readonly slot?: FreeTextSlot,
  ) {
    sequences.forEach((s, i) => {
      let n = this.root;
      for (const t of s) {
        let c = n.children.get(t);
        if (!c) n.children.set(t, (c = { children: new Map(), terminal: false, open: false }));
        n = c;
      }
      if (opens[i] && slot) n.open = true;
      else n.terminal = true;
    });
  }

  /** Allowed next token ids after `prefix`, ascending; empty when the prefix leaves the trie or ends in <eos>. */
  allowed(prefix: readonly number[]): Int32Array {
    let n: Node | undefined = this.root;
    for (let i = 0; i < prefix.length; i++) {
      const t = prefix[i];
      if (t === this.eos) return new Int32Array(0);
      if (n.open && this.slot) return this.inSlot(prefix.slice(i));
      n = n.children.get(t);
      if (!n) return new Int32Array(0);
    }
    if (n.open && this.slot) return this.inSlot([]);
    const out = [...n.children.keys()];
    if (n.terminal) out.push(this.eos);
    return Int32Array.from(out.sort((a, b) => a - b));
  }

  /**
   * Allowed tokens after `text`, the tokens sampled inside an open slot so far: free text, and the close once some of
   * it is not blank; after the close only <eos>.
   */
  private inSlot(text: readonly number[]): Int32Array {
    const slot = this.slot as FreeTextSlot;
    const closedAt = text.findIndex((t) => slot.close.has(t));
    if (closedAt < 0) return text.every((t) => slot.blank.has(t)) ? slot.free : slot.inside;
    if (closedAt === text.length - 1) return Int32Array.of(this.eos);
    return new Int32Array(0);
  }
}
