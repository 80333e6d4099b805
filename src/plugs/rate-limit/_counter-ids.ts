/**
 * @module
 * Private to the rate limiter: the ids its parties are counted under in shared counts
 * (`counters.ts`). This is the one place an id is made from what the key lookup (`_key-index.ts`)
 * finds, so a change to how keys are found changes only `keyCounterIds`.
 *
 * - A key: `key:` and a SHA-256 digest of it under this file's own label (43 characters), never the
 *   key: a store's reader learns no key, and the digest is not the idempotency keys' client digest.
 *   The same key is the same id on every instance, whatever its place in `API_KEYS`.
 * - An address: `address:` and the form the limiter counts it in (`_client-address.ts`: canonical,
 *   an IPv6 /64, at most 49 characters, or `unknown`), so every spelling of one address is one id
 *   and no header's text reaches the store.
 * - The overflow every address past the bound shares: `address:overflow`, which no counted form is.
 */

/** The label a key is digested under, so its id matches no other digest of it. */
const KEY_LABEL = "animal-store rate-limit key\n";

/** The ids of the configured keys, in their order (the index the key lookup finds). */
export function keyCounterIds(keys: readonly string[]): Promise<string[]> {
  return Promise.all(keys.map(async (key) => `key:${base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(KEY_LABEL + key)))}`));
}

/** The id of an address as the limiter counts it. */
export function addressCounterId(counted: string): string {
  return `address:${counted}`;
}

/** The id of the count addresses past the bound share. */
export const OVERFLOW_COUNTER_ID = "address:overflow";

/** Bytes as base64url without padding. */
function base64url(buffer: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(buffer))).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
