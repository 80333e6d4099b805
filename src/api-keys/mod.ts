/**
 * @module
 * The API keys an app accepts, as a key ring: each key with a name (what the access log, traces and
 * the rate limit call its client), the key itself or only its SHA-256, a scope (`read` or `write`) and
 * an expiry. A request's bearer token is hashed and its key found by that digest in one lookup,
 * however many keys there are and however much of a guess is right (a ring of at most four keys
 * given as themselves compares the token with each instead, in constant time: `_key-set.ts`). A
 * request is looked up once,
 * and every part of the app that asks again (the rate limit, the log) gets the same answer; the host
 * may replace every key at once while the app serves (`replace`), and a request is then answered by
 * the old set or the new one, never by both.
 *
 * ```ts
 * import { createApp, createKeyRing, createMemoryStore } from "../mod.ts";
 * const keys = createKeyRing(["secret", { name: "reports", key: "read-only-secret", scope: "read" }]);
 * const app = createApp({ store: createMemoryStore(), apiKeys: keys });
 * keys.replace([{ name: "shop", key: "new-secret" }, { name: "reports", key: "read-only-secret", scope: "read" }]);
 * ```
 */
import type { ApiKey, ApiKeyEntry, KnownKey } from "./_entry-rules.ts";
import type { KeyChanges, KeyList, KeySet } from "./_key-set.ts";
import { expiryOf, HASH_PREFIX, keyProblem, MAX_KEY_LENGTH, nameProblem, scopeProblem } from "./_entry-rules.ts";
import { changesBetween, indexOf, indexOfToken, keySetBuilder, knownAt, lastExpiry } from "./_key-set.ts";
import { digestBase64url, readHexDigest, sha256, sha256Scratch } from "./_sha256.ts";

export type { ApiKey, ApiKeyEntry, KeyScope, KnownKey } from "./_entry-rules.ts";
export type { KeyChanges, KeyList } from "./_key-set.ts";
export { HASH_PREFIX, isBearerToken, KEY_SCOPES, MAX_KEY_LENGTH } from "./_entry-rules.ts";

/** What a request's `Authorization` says: a known key (valid, or past its expiry), or none (no bearer token, or one no key has). */
export type KeyCheck =
  | { readonly outcome: "valid" | "expired"; readonly key: KnownKey }
  | { readonly outcome: "missing" | "invalid"; readonly key?: undefined };

/** The keys an app accepts, which the host may replace while the app serves. */
export interface KeyRing {
  /** The key `request` carries, found once: asked again for the same request, the same answer, even across a `replace`. */
  keyOf(request: Request): KeyCheck;
  /** Puts `keys` (a list, or what `parseKeyFile` read) in place of every key at once, counting by name what changed; throws a `RangeError`, and keeps the keys it had, when one of them is wrong. */
  replace(keys: readonly ApiKey[] | KeyList): KeyChanges;
  /** How many keys it holds. */
  readonly size: number;
}

const MISSING: KeyCheck = Object.freeze({ outcome: "missing" });
const INVALID: KeyCheck = Object.freeze({ outcome: "invalid" });

/**
 * A ring of `keys` (a list, or what `parseKeyFile` read); throws a `RangeError` naming the entry when one
 * is wrong, two share a name or a key, or none is left unexpired.
 */
export function createKeyRing(keys: readonly ApiKey[] | KeyList): KeyRing {
  let set: KeySet = keySetOf(keys, Date.now());
  const checked = new WeakMap<Request, KeyCheck>();
  const scratch = sha256Scratch();
  return {
    keyOf(request) {
      let check = checked.get(request);
      if (check === undefined) {
        check = lookUp(set, request.headers.get("authorization"));
        checked.set(request, check);
      }
      return check;
    },
    replace(keys) {
      const replacing = keySetOf(keys, Date.now());
      const changes = changesBetween(set, replacing);
      set = replacing;
      return changes;
    },
    get size() {
      return set.size;
    },
  };

  /** Finds the key of an `Authorization` value in `keys`: by its digest, or among a few keys given as themselves by comparing with each. */
  function lookUp(keys: KeySet, authorization: string | null): KeyCheck {
    const token = authorization === null ? undefined : bearerToken(authorization);
    if (token === undefined) return MISSING;
    if (token.end - token.start > MAX_KEY_LENGTH || !isVisibleAscii(authorization!, token.start, token.end)) return INVALID;
    const index = keys.plain !== undefined ? indexOfToken(keys.plain, authorization!, token.start, token.end) : indexOfDigest(keys, authorization!, token.start, token.end);
    if (index === -1) return INVALID;
    const key = knownAt(keys, index);
    return { outcome: key.expiresAt !== undefined && Date.now() >= key.expiresAt ? "expired" : "valid", key };
  }

  /** Where the key of `text[start, end)` lies in `keys`: its SHA-256 looked up in their table. */
  function indexOfDigest(keys: KeySet, text: string, start: number, end: number): number {
    sha256(text, start, end, scratch);
    return indexOf(keys, scratch.digest);
  }
}

/** The set of `keys`: a list's, checked and hashed here, or a `KeyList` as it is; a `RangeError` for a wrong one, or one with every key expired by `now`. */
function keySetOf(keys: readonly ApiKey[] | KeyList, now: number): KeySet {
  if (!Array.isArray(keys)) {
    const list = keys as KeySet;
    if (!(list.digests instanceof Int32Array)) throw new TypeError("Cannot check API keys: a key list is an array of keys or what parseKeyFile read");
    return usable(list, now);
  }
  const entries = keys as readonly ApiKey[];
  if (entries.length === 0) throw new RangeError("Cannot check API keys: no key is configured");
  const builder = keySetBuilder(entries.length);
  const scratch = sha256Scratch();
  const encoder = new TextEncoder();
  const where = (index: number) => typeof entries[index] === "string" ? `apiKeys[${index}]` : `apiKeys[${index}] (${JSON.stringify(String((entries[index] as ApiKeyEntry).name))})`;
  for (const [index, given] of entries.entries()) {
    const entry: ApiKeyEntry = typeof given === "string" ? { name: `key-${index + 1}`, key: given } : given;
    const problem = nameProblem(entry.name) ?? keyProblem(entry.key) ?? scopeProblem(entry.scope);
    const expiry = entry.expires === undefined ? { at: Infinity } : expiryOf(entry.expires);
    if (problem !== undefined || "problem" in expiry) throw new RangeError(`Cannot check API keys: ${where(index)}: ${problem ?? (expiry as { problem: string }).problem}`);
    const hashed = entry.key.startsWith(HASH_PREFIX);
    const name = encoder.encode(entry.name);
    const at = builder.add(name, 0, name.length, entry.scope === "read", expiry.at, hashed ? undefined : entry.key);
    if (hashed) readHexDigest(encoder.encode(entry.key), HASH_PREFIX.length, builder.digests, at * 8);
    else {
      sha256(entry.key, 0, entry.key.length, scratch);
      builder.digests.set(scratch.digest, at * 8);
    }
  }
  const set = builder.finish();
  if ("kind" in set) {
    const twin = set.kind === "name" ? `the name is already apiKeys[${set.earlier}]'s` : `the same key as ${where(set.earlier)}`;
    throw new RangeError(`Cannot check API keys: ${where(set.later)}: ${twin}`);
  }
  return usable(set, now);
}

/** The set, unless every key of it has expired by `now` (a `RangeError`: no request would be accepted). */
function usable(set: KeySet, now: number): KeySet {
  const last = lastExpiry(set);
  if (last > now) return set;
  throw new RangeError(`Cannot check API keys: every key has expired (the last at ${new Date(last).toISOString()}), so no request would be accepted`);
}

/** The keys `apiKeys` names: the ring itself, or a ring made of the list; a `TypeError` for anything else. */
export function keyRingOf(apiKeys: readonly ApiKey[] | KeyList | KeyRing): KeyRing {
  if (Array.isArray(apiKeys) || (apiKeys as Partial<KeySet>).digests instanceof Int32Array) return createKeyRing(apiKeys as readonly ApiKey[] | KeyList);
  if (typeof (apiKeys as Partial<KeyRing> | undefined)?.keyOf === "function") return apiKeys as KeyRing;
  throw new TypeError("Cannot check API keys: apiKeys must be a list of keys or a key ring (createKeyRing)");
}

/** The SHA-256 of an `Authorization` value's bearer token, base64url-encoded (43 characters): what stores keep to name a key's client. */
export function tokenDigest(authorization: string | null): string {
  const token = authorization === null ? undefined : bearerToken(authorization);
  const scratch = sha256Scratch();
  if (token === undefined) sha256("", 0, 0, scratch);
  else sha256(authorization!, token.start, token.end, scratch);
  return digestBase64url(scratch.digest);
}

const BEARER = "bearer";
const SPACE = 0x20;

/**
 * Where the token of `Bearer <token>` lies in a header, read without a regular expression or a new
 * string: the scheme in any case, one or more spaces, the token, trailing spaces (RFC 6750 §2.1, RFC
 * 9110 §11.4); `undefined` for another scheme or none. The token may be empty: no key matches it.
 */
function bearerToken(header: string): { start: number; end: number } | undefined {
  if (header.length < BEARER.length) return undefined;
  for (let i = 0; i < BEARER.length; i++) {
    // `| 0x20` lowers an ASCII capital; no other character becomes a letter of "bearer" by it.
    if ((header.charCodeAt(i) | 0x20) !== BEARER.charCodeAt(i)) return undefined;
  }
  if (header.length > BEARER.length && header.charCodeAt(BEARER.length) !== SPACE) return undefined;
  let start = BEARER.length;
  while (start < header.length && header.charCodeAt(start) === SPACE) start++;
  let end = header.length;
  while (end > start && header.charCodeAt(end - 1) === SPACE) end--;
  return { start, end };
}

/** Whether `text[start, end)` is visible ASCII, as every key is: anything else is no key, and is not hashed. */
function isVisibleAscii(text: string, start: number, end: number): boolean {
  let outside = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    outside |= (code - 0x21) | (0x7e - code);
  }
  return outside >= 0;
}
