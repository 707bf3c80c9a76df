/**
 * Prefix trie over admissible actions' token sequences, for `admissible` decoding: the allowed next
 * tokens after a prefix are the children of the prefix's node, plus <eos> when the prefix is a whole action.
 */

interface Node {
  children: Map<number, Node>;
  terminal: boolean;
}

/** Trie of token sequences. */
export class ActionTrie {
  private root: Node = { children: new Map(), terminal: false };

  /** @param sequences token ids of each admissible action (without <eos>); @param eos the end token id. */
  constructor(
    sequences: readonly (readonly number[])[],
    private readonly eos: number,
  ) {
    for (const s of sequences) {
      let n = this.root;
      for (const t of s) {
        let c = n.children.get(t);
        if (!c) n.children.set(t, (c = { children: new Map(), terminal: false }));
        n = c;
      }
      n.terminal = true;
    }
  }

  /** Allowed next token ids after `prefix`, ascending; empty when the prefix leaves the trie or ends in <eos>. */
  allowed(prefix: readonly number[]): Int32Array {
    let n: Node | undefined = this.root;
    for (const t of prefix) {
      if (t === this.eos) return new Int32Array(0);
      n = n.children.get(t);
      if (!n) return new Int32Array(0);
    }
    const out = [...n.children.keys()];
    if (n.terminal) out.push(this.eos);
    return Int32Array.from(out.sort((a, b) => a - b));
  }
}
