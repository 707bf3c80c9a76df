/**
 * Reading a fetch Response's body with a byte cap, for every network read the product makes (the `http` analyzer's
 * replies, the page's base policy). `Response.text()` / `.arrayBuffer()` read whatever the server sends: a hostile or
 * misconfigured server streaming an endless body fills memory before any timeout fires. Here the body is read as a
 * stream (`body.getReader()`), a declared Content-Length over the cap is refused before a byte is read, and the
 * stream is cancelled (closing the connection) as soon as the bytes read pass the cap. Works with Node's (undici)
 * fetch and browsers' alike: both give `body` as a web ReadableStream.
 */

/** 1 KiB, 1 MiB: the units caps are written in. */
export const KIB = 1024;
export const MIB = 1024 * 1024;

/** The part of a Response a capped read uses. */
export interface BodySource {
  /** Response headers (Content-Length is checked when present). */
  headers?: { get(name: string): string | null } | null;
  /** The body stream; `null` for a reply without one (204, HEAD): read as empty. */
  body: ReadableStream<Uint8Array> | null;
}

/** A size in words: `812 bytes`, `64 KiB`, `4 MiB`, `4.5 MiB` (one decimal, trailing `.0` dropped). */
export function sizeWords(n: number): string {
  const one = (x: number) => x.toFixed(1).replace(/\.0$/, '');
  if (n < KIB) return `${n} byte${n === 1 ? '' : 's'}`;
  if (n < MIB) return `${one(n / KIB)} KiB`;
  return `${one(n / MIB)} MiB`;
}

/**
 * A body over its cap: `cap` bytes allowed, `read` bytes read before stopping (0 when refused from Content-Length),
 * `declared` the Content-Length the server announced (undefined when none or not a number). The message names what
 * was read, the cap and both sizes in words.
 */
export class ReadCapError extends Error {
  override readonly name = 'ReadCapError';
  constructor(
    readonly what: string,
    readonly cap: number,
    readonly read: number,
    readonly declared?: number,
  ) {
    super(
      declared !== undefined && read === 0
        ? `${what} declares ${sizeWords(declared)} (Content-Length ${declared}), over its ` +
            `${sizeWords(cap)} cap; not read`
        : `${what} passed its ${sizeWords(cap)} cap: stopped after reading ${sizeWords(read)} (${read} bytes)`,
    );
  }
}

/** The Content-Length header as a number of bytes, or undefined when absent or not a plain decimal. */
function declaredLength(res: BodySource): number | undefined {
  const v = res.headers?.get('content-length')?.trim();
  return v && /^\d{1,16}$/.test(v) ? Number(v) : undefined;
}

/** Cancel a stream, ignoring a failure to cancel (the stream may already be errored or closed). */
async function cancelQuietly(cancel: () => Promise<void>): Promise<void> {
  try {
    await cancel();
  } catch {
    // nothing more to release
  }
}

/**
 * The whole body of `res` as bytes, at most `cap` bytes. `what` names the read in the error ("analyzer reply",
 * "base weights /base/x.safetensors").
 * @throws ReadCapError, after cancelling the stream, when Content-Length declares more than `cap` (nothing read) or
 *   the bytes read pass `cap` (no more than `cap` bytes plus one chunk are ever held); the stream's own error when
 *   the body fails mid-read (a dropped connection, a body that does not decompress, an abort).
 */
export async function readCappedBytes(res: BodySource, cap: number, what: string): Promise<Uint8Array> {
  const declared = declaredLength(res);
  if (declared !== undefined && declared > cap) {
    if (res.body) await cancelQuietly(() => res.body!.cancel());
    throw new ReadCapError(what, cap, 0, declared);
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.byteLength;
    if (read > cap) {
      chunks.length = 0; // let the chunks go before waiting on the cancel
      await cancelQuietly(() => reader.cancel());
      throw new ReadCapError(what, cap, read, declared);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(read);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The whole body of `res` as text (UTF-8, a leading BOM dropped, bad bytes replaced: what `Response.text()` gives),
 * at most `cap` bytes. Throws as `readCappedBytes`.
 */
export async function readCappedText(res: BodySource, cap: number, what: string): Promise<string> {
  return new TextDecoder().decode(await readCappedBytes(res, cap, what));
}
