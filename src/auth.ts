/**
 * @module
 * Bearer API key checking (RFC 6750), in constant time.
 *
 * Keys are compared through their SHA-256 digests: digests always have the same length, so the
 * comparison takes the same time whatever the key, and no key is ever held next to a request's bytes.
 */

/** The outcome of checking an `Authorization` header. */
export type AuthOutcome = "ok" | "missing" | "invalid";

/** Checks the `Authorization` header of a request against the configured keys. */
export type KeyChecker = (authorization: string | null) => Promise<AuthOutcome>;

// RFC 9110 §11.4: the scheme is case-insensitive and followed by one or more spaces;
// RFC 6750 §2.1: the token has the token68 syntax.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const BEARER_SCHEME = /^bearer(?: |$)/i;
const encoder = new TextEncoder();

/** A checker that accepts exactly the given keys; throws when there are none or one is not a token. */
export function createKeyChecker(keys: readonly string[]): KeyChecker {
  if (keys.length === 0) throw new RangeError("Cannot check API keys: no key is configured");
  for (const key of keys) {
    if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(key)) {
      throw new RangeError("Cannot check API keys: a key holds characters a bearer token cannot carry");
    }
  }
  const keyDigests = Promise.all(keys.map(digest));
  return async (authorization) => {
    if (authorization === null || !BEARER_SCHEME.test(authorization)) return "missing";
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined) return "invalid";
    const tokenDigest = await digest(token);
    let matched = false;
    for (const keyDigest of await keyDigests) matched = equalDigests(tokenDigest, keyDigest) || matched;
    return matched ? "ok" : "invalid";
  };
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/** Compares two equal-length digests without stopping at the first difference. */
function equalDigests(a: Uint8Array, b: Uint8Array): boolean {
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
