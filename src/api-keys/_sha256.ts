/**
 * @module
 * Private to the key ring: SHA-256 (FIPS 180-4), written out, synchronous, over a range of a string
 * whose characters are bytes (an `Authorization` value: a ByteString, each character below 256), into
 * eight 32-bit words, allocating nothing. The ring finds a request's key by this digest in one lookup.
 *
 * Why not the runtime's: `crypto.subtle.digest` is asynchronous, and awaited per request it cost 2 µs
 * on Bun and 29–41 µs on Deno and Node; `node:crypto` is no web standard (and 0.7–2.3 µs outside Bun).
 * This one takes 0.38–0.43 µs for a 43-character key on Bun, Deno and Node (docs/benchmarks.md).
 */

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes (§4.2.2).
const K = Int32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
);

// The first 32 bits of the fractional parts of the square roots of the first 8 primes (§5.3.3).
const INITIAL = Int32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);

/** The words a digest is written into, and the message schedule it is worked out in: an owner's, reused for every digest. */
export interface Sha256Scratch {
  readonly digest: Int32Array;
  readonly schedule: Int32Array;
}

/** Room for digests: what one owner (a key ring) reuses, so a digest allocates nothing. */
export function sha256Scratch(): Sha256Scratch {
  return { digest: new Int32Array(8), schedule: new Int32Array(64) };
}

/** Writes the SHA-256 of `text`'s characters `start` to `end` (each one byte) into `scratch.digest`. */
export function sha256(text: string, start: number, end: number, scratch: Sha256Scratch): void {
  const { digest, schedule } = scratch;
  digest.set(INITIAL);
  const length = end - start;
  // The message, then the 0x80 byte, then zeros, then its length in bits as 64 bits: whole 64-byte blocks.
  const blocks = (length + 72) >>> 6;
  for (let block = 0, at = start; block < blocks; block++, at += 64) {
    const whole = Math.max(0, Math.min(16, (end - at) >> 2));
    for (let i = 0; i < whole; i++) {
      const from = at + i * 4;
      schedule[i] = (text.charCodeAt(from) << 24) | (text.charCodeAt(from + 1) << 16) | (text.charCodeAt(from + 2) << 8) | text.charCodeAt(from + 3);
    }
    for (let i = whole; i < 16; i++) {
      let word = 0;
      for (let from = at + i * 4, j = 0; j < 4; j++, from++) word = (word << 8) | (from < end ? text.charCodeAt(from) : from === end ? 0x80 : 0);
      schedule[i] = word;
    }
    if (block === blocks - 1) {
      schedule[14] = Math.floor(length / 0x20000000);
      schedule[15] = length << 3;
    }
    compress(digest, schedule);
  }
}

/** One block's rounds (§6.2.2): the schedule's 16 words widened to 64, mixed into the state `h`. */
function compress(h: Int32Array, w: Int32Array): void {
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15]!;
    const y = w[i - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = h[0]!, b = h[1]!, c = h[2]!, d = h[3]!, e = h[4]!, f = h[5]!, g = h[6]!, k = h[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (k + s1 + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    k = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0]! + a) | 0;
  h[1] = (h[1]! + b) | 0;
  h[2] = (h[2]! + c) | 0;
  h[3] = (h[3]! + d) | 0;
  h[4] = (h[4]! + e) | 0;
  h[5] = (h[5]! + f) | 0;
  h[6] = (h[6]! + g) | 0;
  h[7] = (h[7]! + k) | 0;
}

/** Reads the 64 hexadecimal digits at `bytes[start]` into eight words at `out[at]`; false, writing nothing certain, when they are not all hexadecimal. */
export function readHexDigest(bytes: Uint8Array, start: number, out: Int32Array, at: number): boolean {
  let valid = true;
  for (let word = 0; word < 8; word++) {
    let value = 0;
    for (let i = start + word * 8; i < start + word * 8 + 8; i++) {
      const nibble = hexValue(bytes[i] ?? 0);
      valid &&= nibble !== -1;
      value = (value << 4) | (nibble & 15);
    }
    out[at + word] = value;
  }
  return valid;
}

/** The value of a hexadecimal digit's character code, or -1. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** Eight words as 64 lowercase hexadecimal digits. */
export function digestHex(words: Int32Array, from = 0): string {
  let hex = "";
  for (let i = from; i < from + 8; i++) hex += (words[i]! >>> 0).toString(16).padStart(8, "0");
  return hex;
}

/** Eight words as the 43 characters of base64url without padding (RFC 4648 §5). */
export function digestBase64url(words: Int32Array): string {
  let bytes = "";
  for (const word of words) bytes += String.fromCharCode(word >>> 24, (word >>> 16) & 255, (word >>> 8) & 255, word & 255);
  return btoa(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
