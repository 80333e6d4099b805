/**
 * @module
 * Private to the rate limiter: the ids its parties are counted under in shared counts
 * (`counters.ts`), made in this one place.
 *
 * - A key: `key:` and its name (1 to 64 letters, digits, `.`, `_` or `-`), never the key or its hash:
 *   a store's reader learns no key. A name is the one id of a key that is stable across a reload of
 *   the key file (which may reorder the keys) and the same on every instance given the same keys.
 * - An address: `address:` and the form the limiter counts it in (`_client-address.ts`: canonical,
 *   an IPv6 /64, at most 49 characters, or `unknown`), so every spelling of one address is one id
 *   and no header's text reaches the store.
 * - The overflow every address past the bound shares: `address:overflow`, which no counted form is.
 */

/** The id of a key, by its name. */
export function keyCounterId(name: string): string {
  return `key:${name}`;
}

/** The id of an address as the limiter counts it. */
export function addressCounterId(counted: string): string {
  return `address:${counted}`;
}

/** The id of the count addresses past the bound share. */
export const OVERFLOW_COUNTER_ID = "address:overflow";
