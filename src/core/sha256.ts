/** sha256 through Web Crypto (browsers, workers, Node ≥ 19): one helper for the core, the worker and the page. */

/** sha256 of `bytes` as 64 lowercase hex digits. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}
