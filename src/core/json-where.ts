/**
 * Where a text stops being JSON, for messages that name the line and column to repair: JSON.parse says why it failed
 * in words that differ between engines, and V8 gives no position for an unexpected character (it quotes the text
 * around it instead), so the text is scanned here by the JSON grammar (RFC 8259) up to its first error. Pure.
 */

/** A JSON syntax error at `offset` (a UTF-16 index of the text; its length when the text ends too early). */
class Stop {
  constructor(readonly offset: number) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = '"\\/bfnrt';

/** A scanner of one JSON text; `scan` throws a Stop at the first character that cannot continue it. */
class Scanner {
  private i = 0;
  constructor(private readonly text: string) {}

  /** Scan the whole text: one value with whitespace around it and nothing after. */
  scan(): void {
    this.value();
    this.space();
    if (this.i < this.text.length) throw new Stop(this.i);
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i])) this.i++;
  }

  private expect(ch: string): void {
    if (this.text[this.i] !== ch) throw new Stop(this.i);
    this.i++;
  }

  private value(): void {
    this.space();
    const c = this.text[this.i];
    if (c === '{') return this.members('}', () => this.member());
    if (c === '[') return this.members(']', () => this.value());
    if (c === '"') return this.string();
    const word = ['true', 'false', 'null'].find((w) => w[0] === c);
    if (word !== undefined) {
      for (const w of word) this.expect(w);
      return;
    }
    NUMBER.lastIndex = this.i;
    if (c !== undefined && NUMBER.test(this.text)) {
      this.i = NUMBER.lastIndex;
      return;
    }
    throw new Stop(this.i);
  }

  /** An object's or array's entries after its opening bracket, separated by commas, up to `close`. */
  private members(close: string, entry: () => void): void {
    this.i++;
    this.space();
    if (this.text[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      entry();
      this.space();
      if (this.text[this.i] !== ',') return this.expect(close);
      this.i++;
    }
  }

  private member(): void {
    this.space();
    if (this.text[this.i] !== '"') throw new Stop(this.i);
    this.string();
    this.space();
    this.expect(':');
    this.value();
  }

  private string(): void {
    this.i++;
    for (;;) {
      if (this.i >= this.text.length) throw new Stop(this.i);
      const c = this.text[this.i];
      if (c === '"') break;
      if (c < ' ') throw new Stop(this.i);
      if (c === '\\') {
        this.i++;
        const e = this.text[this.i];
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.i + 1, this.i + 5))) this.i += 4;
        else if (e === undefined || !ESCAPES.includes(e)) throw new Stop(this.i);
      }
      this.i++;
    }
    this.i++;
  }
}

/**
 * The first place `text` is not JSON, as the 1-based line and column (in UTF-16 units) and what is there (a printable
 * ASCII character quoted, a line break as such, any other character by its code point): e.g. `at line 12, column 15
 * (unexpected ",")`, or `at line 40, column 1 (the text ends before the JSON is complete)` for a file cut short; null
 * when `text` is JSON (or nests too deep to scan here).
 */
export function jsonErrorWhere(text: string): string | null {
  let offset: number;
  try {
    new Scanner(text).scan();
    return null;
  } catch (e) {
    if (!(e instanceof Stop)) return null; // a RangeError: nesting deeper than the stack
    offset = e.offset;
  }
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  const cp = text.codePointAt(offset);
  const what =
    cp === undefined
      ? 'the text ends before the JSON is complete'
      : cp === 0x0a
        ? 'unexpected line break'
        : cp >= 0x20 && cp < 0x7f
          ? `unexpected ${JSON.stringify(String.fromCodePoint(cp))}`
          : `unexpected U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return `at line ${line}, column ${column} (${what})`;
}
