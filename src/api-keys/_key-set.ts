/**
 * @module
 * Private to the key ring: one set of keys as the ring looks them up, never changed once made (a new
 * set replaces it), kept in a few arrays rather than an object per key, so that 100,000 keys take about
 * 7 MiB and load without a heap of garbage: every name one after another in one string, each key's
 * SHA-256 as eight words in one `Int32Array`, scopes and expiries in typed arrays. A table of chains
 * (`heads` by a digest's first word, `next`) finds a digest in one lookup whatever the number of keys;
 * every key on the chain is compared over all eight words, so the time taken never tells how much of a
 * digest matched. A key's `KnownKey` is made the first time a request carries it.
 */
import type { KnownKey } from "./_entry-rules.ts";

/**
 * At most this many keys, each given as the key itself, are compared with a token one by one, in
 * constant time, rather than found by its digest: the default configuration's one key (`API_KEYS`,
 * or the generated one) then costs a request what it did before the ring (a speed device, measured
 * in bench/RESULTS.md). The comparison's time depends on the keys' lengths only.
 */
const COMPARED_AT_MOST = 4;

/** Keys checked and hashed, ready for a key ring (`createKeyRing`, `replace`): what `parseKeyFile` reads a key file into. */
export interface KeyList {
  /** How many keys it holds. */
  readonly size: number;
}

/** The keys of one set, their digests and the table that finds them. */
export interface KeySet extends KeyList {
  /** Every name, one after another; name `i` ends at `nameEnds[i]` and starts where the one before ends. */
  readonly names: string;
  readonly nameEnds: Uint32Array;
  /** 1 for a key of scope read, 0 for write. */
  readonly readOnly: Uint8Array;
  /** When each key expires, in milliseconds since the epoch; `Infinity` for never. */
  readonly expiries: Float64Array;
  /** Eight words per key. */
  readonly digests: Int32Array;
  /** The table: a digest's first word masked (`heads.length - 1`) → the first key on its chain, or -1. */
  readonly heads: Int32Array;
  /** The next key on the same chain, or -1. */
  readonly next: Int32Array;
  /** The keys themselves, when every key was given so and there are at most `COMPARED_AT_MOST`. */
  readonly plain: readonly string[] | undefined;
  /** Each key's `KnownKey`, made when a request first carries it. */
  readonly known: (KnownKey | undefined)[];
}

/** What replacing one set with another did, by name: names new, gone, in both, and of those, changed in key, scope or expiry. */
export interface KeyChanges {
  readonly added: number;
  readonly removed: number;
  readonly kept: number;
  readonly changed: number;
}

/** Two keys the whole set refuses together: the same name, or the same key; `later` came after `earlier`, which is named `name`. */
export interface Twins {
  readonly kind: "name" | "key";
  readonly later: number;
  readonly earlier: number;
  readonly name: string;
}

/** Makes a set one key at a time: `add` a key, then write its digest at `digests[index * 8]`; `finish` once all are in. */
export interface KeySetBuilder {
  /**
   * Adds a key named by the checked name `name[start, end)` (ASCII), with its scope, its expiry
   * (`Infinity` for none) and the key itself when it was given so; its index.
   */
  add(name: Uint8Array, start: number, end: number, readOnly: boolean, expiresAt: number, plain: string | undefined): number;
  /** The digests of the keys added, eight words each, written by the caller. */
  readonly digests: Int32Array;
  /** The set, or the first two keys it refuses together. */
  finish(): KeySet | Twins;
}

/** A builder for up to `capacity` keys. */
export function keySetBuilder(capacity: number): KeySetBuilder {
  // Every name's bytes one after another, made one string at the end: no string per name.
  let names = new Uint8Array(capacity * 16);
  const nameEnds = new Uint32Array(capacity);
  const readOnly = new Uint8Array(capacity);
  const expiries = new Float64Array(capacity);
  const digests = new Int32Array(capacity * 8);
  const plain: string[] = [];
  let size = 0;
  let length = 0;
  return {
    digests,
    add(name, start, end, read, expiresAt, key) {
      if (length + end - start > names.length) {
        const larger = new Uint8Array(Math.max(names.length * 2, length + end - start));
        larger.set(names.subarray(0, length));
        names = larger;
      }
      names.set(name.subarray(start, end), length);
      length += end - start;
      nameEnds[size] = length;
      readOnly[size] = read ? 1 : 0;
      expiries[size] = expiresAt;
      if (key !== undefined) plain.push(key);
      return size++;
    },
    finish() {
      // Views, not copies: the room left over is what the file's blank lines and comments took.
      const set: KeySet = {
        size,
        names: new TextDecoder().decode(names.subarray(0, length)),
        nameEnds: nameEnds.subarray(0, size),
        readOnly: readOnly.subarray(0, size),
        expiries: expiries.subarray(0, size),
        digests: digests.subarray(0, size * 8),
        ...table(digests, size),
        plain: plain.length === size && size <= COMPARED_AT_MOST ? plain : undefined,
        known: new Array<KnownKey | undefined>(size),
      };
      return keyTwins(set) ?? nameTwins(set) ?? set;
    },
  };
}

/** When the last key of a set expires (`Infinity` when one never does); a set whose last has passed accepts no request. */
export function lastExpiry(set: KeySet): number {
  let last = -Infinity;
  for (const expiresAt of set.expiries) last = Math.max(last, expiresAt);
  return last;
}

/** The index of the key whose digest is `digest`, or -1; every key on its chain is compared over all eight words. */
export function indexOf(set: KeySet, digest: Int32Array): number {
  let found = -1;
  for (let candidate = set.heads[digest[0]! & (set.heads.length - 1)]!; candidate !== -1; candidate = set.next[candidate]!) {
    let difference = 0;
    for (let i = 0; i < 8; i++) difference |= set.digests[candidate * 8 + i]! ^ digest[i]!;
    if (difference === 0) found = candidate;
  }
  return found;
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

/** Key `index` of a set, as the ring tells of it. */
export function knownAt(set: KeySet, index: number): KnownKey {
  let known = set.known[index];
  if (known === undefined) {
    const expiresAt = set.expiries[index]!;
    known = Object.freeze({ name: nameAt(set, index), scope: set.readOnly[index] === 1 ? "read" : "write", ...(expiresAt === Infinity ? {} : { expiresAt }) });
    set.known[index] = known;
  }
  return known;
}

/** The name of key `index`. */
export function nameAt(set: KeySet, index: number): string {
  return set.names.slice(index === 0 ? 0 : set.nameEnds[index - 1]!, set.nameEnds[index]!);
}

/** How `after` differs from `before`, name by name: both walked in the order of their names. */
export function changesBetween(before: KeySet, after: KeySet): KeyChanges {
  const older = byName(before);
  const newer = byName(after);
  let kept = 0;
  let changed = 0;
  for (let i = 0, j = 0; i < older.length && j < newer.length;) {
    const order = compareNames(before, older[i]!, after, newer[j]!);
    if (order < 0) i++;
    else if (order > 0) j++;
    else {
      kept++;
      if (!sameKey(before, older[i++]!, after, newer[j++]!)) changed++;
    }
  }
  return { added: after.size - kept, removed: before.size - kept, kept, changed };
}

/** The table of a set's digests: as many heads as the next power of two at or above twice the keys, chains through `next`. */
function table(digests: Int32Array, size: number): { heads: Int32Array; next: Int32Array } {
  let slots = 2;
  while (slots < size * 2) slots *= 2;
  const heads = new Int32Array(slots).fill(-1);
  const next = new Int32Array(size).fill(-1);
  for (let index = size - 1; index >= 0; index--) {
    const slot = digests[index * 8]! & (slots - 1);
    next[index] = heads[slot]!;
    heads[slot] = index;
  }
  return { heads, next };
}

/** The first key whose digest an earlier key has, with it. */
function keyTwins(set: KeySet): Twins | undefined {
  for (let later = 0; later < set.size; later++) {
    for (let earlier = set.heads[set.digests[later * 8]! & (set.heads.length - 1)]!; earlier !== -1 && earlier < later; earlier = set.next[earlier]!) {
      if (sameDigest(set, earlier, set, later)) return { kind: "key", later, earlier, name: nameAt(set, earlier) };
    }
  }
  return undefined;
}

/** The first key whose name an earlier key has, with it. */
function nameTwins(set: KeySet): Twins | undefined {
  const order = byName(set);
  let found: Twins | undefined;
  for (let i = 1; i < order.length; i++) {
    if (compareNames(set, order[i - 1]!, set, order[i]!) !== 0) continue;
    const [earlier, later] = [Math.min(order[i - 1]!, order[i]!), Math.max(order[i - 1]!, order[i]!)];
    if (found === undefined || later < found.later) found = { kind: "name", later, earlier, name: nameAt(set, earlier) };
  }
  return found;
}

/** A set's indexes in the order of their names (equal names by index). */
function byName(set: KeySet): Int32Array {
  return Int32Array.from({ length: set.size }, (_, i) => i).sort((a, b) => compareNames(set, a, set, b) || a - b);
}

/** How name `i` of `a` orders against name `j` of `b`, character by character, without making either. */
function compareNames(a: KeySet, i: number, b: KeySet, j: number): number {
  const aStart = i === 0 ? 0 : a.nameEnds[i - 1]!;
  const bStart = j === 0 ? 0 : b.nameEnds[j - 1]!;
  const aLength = a.nameEnds[i]! - aStart;
  const bLength = b.nameEnds[j]! - bStart;
  for (let k = 0; k < aLength && k < bLength; k++) {
    const difference = a.names.charCodeAt(aStart + k) - b.names.charCodeAt(bStart + k);
    if (difference !== 0) return difference;
  }
  return aLength - bLength;
}

function sameKey(a: KeySet, i: number, b: KeySet, j: number): boolean {
  return a.readOnly[i] === b.readOnly[j] && a.expiries[i] === b.expiries[j] && sameDigest(a, i, b, j);
}

function sameDigest(a: KeySet, i: number, b: KeySet, j: number): boolean {
  for (let k = 0; k < 8; k++) if (a.digests[i * 8 + k] !== b.digests[j * 8 + k]) return false;
  return true;
}
