/**
 * @module
 * Private to the key ring: one set of keys as the ring looks them up, never changed once made (a
 * new set replaces it). Each key's SHA-256 is kept as eight words in one array; a `Map` from a
 * digest's first word to the first key that starts with it, and a chain to the next, find a digest
 * in one lookup whatever the number of keys. Every key on the chain is compared over all eight
 * words, so the time taken never tells how much of a digest matched.
 */
import type { ApiKey, ApiKeyEntry, KnownKey } from "./_entry-rules.ts";
import { expiryOf, HASH_PREFIX, keyHash, keyProblem, nameProblem, scopeProblem } from "./_entry-rules.ts";

/**
 * At most this many keys, each given as the key itself, are compared with a token one by one, in
 * constant time, rather than found by its digest: the default configuration's one key (`API_KEYS`,
 * or the generated one) then costs a request what it did before the ring (a speed device, measured
 * in bench/RESULTS.md). The comparison's time depends on the keys' lengths only.
 */
const COMPARED_AT_MOST = 4;

/** The keys of one set, their digests and the table that finds them. */
export interface KeySet {
  readonly keys: readonly KnownKey[];
  /** The keys themselves, in the order of `keys`, when every key was given so and there are at most `COMPARED_AT_MOST`. */
  readonly plain: readonly string[] | undefined;
  /** Eight words per key, in the order of `keys`. */
  readonly digests: Int32Array;
  /** A digest's first word (its low 30 bits, a small integer to every engine) → the first key whose digest starts so. */
  readonly first: ReadonlyMap<number, number>;
  /** The next key whose digest starts as this one's, or -1. */
  readonly next: Int32Array;
}

/** What replacing one set with another did, by name: names new, gone, in both, and of those, changed in key, scope or expiry. */
export interface KeyChanges {
  readonly added: number;
  readonly removed: number;
  readonly kept: number;
  readonly changed: number;
}

/** The set of `keys`; a `RangeError` naming the entry when one is wrong, two share a name or a key, or every key has expired by `now`. */
export function keySetOf(keys: readonly ApiKey[], now: number): KeySet {
  if (keys.length === 0) throw new RangeError("Cannot check API keys: no key is configured");
  const known: KnownKey[] = [];
  const digests = new Int32Array(keys.length * 8);
  const first = new Map<number, number>();
  const next = new Int32Array(keys.length).fill(-1);
  const names = new Map<string, number>();
  const plain: string[] = [];
  for (const [index, given] of keys.entries()) {
    const entry: ApiKeyEntry = typeof given === "string" ? { name: `key-${index + 1}`, key: given } : given;
    const where = typeof given === "string" ? `apiKeys[${index}]` : `apiKeys[${index}] (${JSON.stringify(String(entry.name))})`;
    const problem = nameProblem(entry.name) ?? keyProblem(entry.key) ?? scopeProblem(entry.scope);
    if (problem !== undefined) throw new RangeError(`Cannot check API keys: ${where}: ${problem}`);
    const expiry = entry.expires === undefined ? undefined : expiryOf(entry.expires);
    if (expiry !== undefined && "problem" in expiry) throw new RangeError(`Cannot check API keys: ${where}: ${expiry.problem}`);
    const twin = names.get(entry.name);
    if (twin !== undefined) throw new RangeError(`Cannot check API keys: ${where}: the name is already apiKeys[${twin}]'s`);
    names.set(entry.name, index);
    writeHash(digests, index, keyHash(entry.key));
    if (!entry.key.startsWith(HASH_PREFIX)) plain.push(entry.key);
    const same = indexOf({ keys: known, plain: undefined, digests, first, next }, digests.subarray(index * 8, index * 8 + 8));
    if (same !== -1) throw new RangeError(`Cannot check API keys: ${where}: the same key as apiKeys[${same}] (${JSON.stringify(known[same]!.name)})`);
    link(first, next, digests[index * 8]!, index);
    // The name copied: a slice of a key file's text would keep the whole text alive with the set.
    known.push(Object.freeze({ name: copied(entry.name), scope: entry.scope ?? "write", ...(expiry === undefined ? {} : { expiresAt: expiry.at }) }));
  }
  if (known.every((key) => key.expiresAt !== undefined && key.expiresAt <= now)) {
    throw new RangeError(`Cannot check API keys: every key has expired (the last at ${new Date(Math.max(...known.map((key) => key.expiresAt!))).toISOString()}), so no request would be accepted`);
  }
  return { keys: known, plain: plain.length === known.length && plain.length <= COMPARED_AT_MOST ? plain : undefined, digests, first, next };
}

/** The index of the key `text[start, end)` equals, or -1: every key compared over its whole length, whatever differs. */
export function indexOfToken(keys: readonly string[], text: string, start: number, end: number): number {
  let found = -1;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    let difference = (end - start) ^ key.length;
    // Past the token's end a 0 stands in, which no key holds: still a difference.
    for (let i = 0; i < key.length; i++) difference |= key.charCodeAt(i) ^ (start + i < end ? text.charCodeAt(start + i) : 0);
    if (difference === 0) found = index;
  }
  return found;
}

/** The index of the key whose digest is `digest`, or -1; every key starting as it does is compared over all eight words. */
export function indexOf(set: KeySet, digest: Int32Array): number {
  let found = -1;
  for (let candidate = set.first.get(digest[0]! & 0x3fffffff) ?? -1; candidate !== -1; candidate = set.next[candidate]!) {
    let difference = 0;
    for (let i = 0; i < 8; i++) difference |= set.digests[candidate * 8 + i]! ^ digest[i]!;
    if (difference === 0) found = candidate;
  }
  return found;
}

/** How `after` differs from `before`, name by name. */
export function changesBetween(before: KeySet, after: KeySet): KeyChanges {
  const earlier = new Map(before.keys.map((key, index) => [key.name, index]));
  let kept = 0;
  let changed = 0;
  for (const [index, key] of after.keys.entries()) {
    const was = earlier.get(key.name);
    if (was === undefined) continue;
    kept++;
    const old = before.keys[was]!;
    if (old.scope !== key.scope || old.expiresAt !== key.expiresAt || !sameDigest(before.digests, was, after.digests, index)) changed++;
  }
  return { added: after.keys.length - kept, removed: before.keys.length - kept, kept, changed };
}

/** Writes 64 hexadecimal digits as the eight words of key `index`. */
function writeHash(digests: Int32Array, index: number, hex: string): void {
  for (let i = 0; i < 8; i++) digests[index * 8 + i] = Number.parseInt(hex.slice(i * 8, i * 8 + 8), 16) | 0;
}

/** Puts key `index` at the head of the chain of digests starting with `word`. */
function link(first: Map<number, number>, next: Int32Array, word: number, index: number): void {
  const slot = word & 0x3fffffff;
  next[index] = first.get(slot) ?? -1;
  first.set(slot, index);
}

function sameDigest(a: Int32Array, i: number, b: Int32Array, j: number): boolean {
  for (let k = 0; k < 8; k++) if (a[i * 8 + k] !== b[j * 8 + k]) return false;
  return true;
}

/** A string of its own with `text`'s characters, holding on to nothing `text` was cut from. */
function copied(text: string): string {
  // Joining makes a pair; slicing the pair flattens it into a new string of these characters alone.
  return ` ${text}`.slice(1);
}
