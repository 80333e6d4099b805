/**
 * @module
 * Private: the strong entity tag of a JSON text, a 64-bit hash of it, so it changes whenever the
 * bytes do, whichever store, instance or process made them (a memory store that restarts gives an
 * id to another pet). It is not a cryptographic digest: `crypto.subtle` is asynchronous and would
 * cost more than the list request itself, and a tag only has to tell one version of one URL's
 * answer from another.
 */

/** The strong entity tag of a text: 16 hex digits, in double quotes. */
export function entityTag(text: string): string {
  // Two 32-bit FNV-1a style hashes with different multipliers, over UTF-16 code units.
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
  }
  b = Math.imul(b ^ (b >>> 15), 0x5bd1e995);
  return `"${hex32(a)}${hex32(b)}"`;
}

function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, "0");
}
