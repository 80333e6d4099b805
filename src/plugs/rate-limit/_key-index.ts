/**
 * @module
 * Private to the rate limiter: which configured API key an `Authorization` header carries, found in
 * constant time, so that each key has its own count.
 *
 * What it buys: the limiter needs to know *which* key a request carries, where the key check
 * (`auth.ts`) only answers whether it carries one. The header is read without a regular expression
 * or a new string, and the token is compared with every key over the key's whole length, as
 * `auth.ts` does, so the time taken never tells how much of a guess is right.
 */

/** Finds the index of the configured key an `Authorization` header carries, or -1 when it carries none. */
export type KeyIndex = (authorization: string | null) => number;

const BEARER = "bearer";
const SPACE = 0x20;

/** A finder over the configured keys (token68 strings, as the key check requires). */
export function createKeyIndex(keys: readonly string[]): KeyIndex {
  const configured = [...keys];
  return (authorization) => {
    if (authorization === null) return -1;
    const start = tokenStart(authorization);
    if (start === -1) return -1;
    let end = authorization.length;
    while (end > start && authorization.charCodeAt(end - 1) === SPACE) end--;
    let found = -1;
    for (let i = 0; i < configured.length; i++) {
      if (equalInConstantTime(authorization, start, end, configured[i]!)) found = i;
    }
    return found;
  };
}

/** Where the token of `Bearer <token>` starts (the scheme in any case, then one or more spaces), or -1. */
function tokenStart(header: string): number {
  if (header.length <= BEARER.length + 1) return -1;
  for (let i = 0; i < BEARER.length; i++) {
    // `| 0x20` lowers an ASCII capital; no other character becomes a letter of "bearer" by it.
    if ((header.charCodeAt(i) | 0x20) !== BEARER.charCodeAt(i)) return -1;
  }
  if (header.charCodeAt(BEARER.length) !== SPACE) return -1;
  let start = BEARER.length + 1;
  while (start < header.length && header.charCodeAt(start) === SPACE) start++;
  return start;
}

/** Whether `header[start, end)` equals `key`, looking at every character of `key` whatever differs. */
function equalInConstantTime(header: string, start: number, end: number, key: string): boolean {
  let difference = (end - start) ^ key.length;
  // Past the token's end a 0 stands in, which no key holds: still a difference.
  for (let i = 0; i < key.length; i++) {
    const at = start + i;
    difference |= key.charCodeAt(i) ^ (at < end ? header.charCodeAt(at) : 0);
  }
  return difference === 0;
}
