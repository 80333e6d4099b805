/**
 * @module
 * Private, shared by the memory and JSON-file stores: the idempotency keys of recent creates, each
 * with the id of the pet it produced, kept 24 hours and at most `capacity` at once.
 *
 * Memory stays bounded: past the capacity the oldest key is forgotten even before its 24 hours are
 * up, and a retry with a forgotten key creates a new pet. The oldest is found through a ring of
 * keys, as in `_pet-texts.ts`: a Map's first key is slow to find after many deletions.
 */
import type { IdempotencyKey } from "./store.ts";
import { IDEMPOTENCY_KEY_TTL_MS } from "./store.ts";

/** The default number of keys a store keeps: about 20 MB with UUID keys, 40 MB with the longest (measured on Node). */
export const DEFAULT_MAX_IDEMPOTENCY_KEYS = 100_000;

/** Recent idempotency keys and the pets they produced. */
export interface KeyTable {
  /** The id of the pet `key` produced, unless it is unknown or older than 24 hours at `now`. */
  find(key: IdempotencyKey, now: number): number | undefined;
  /** Remembers that `key` produced pet `petId` at time `at` (milliseconds since the epoch). */
  add(key: IdempotencyKey, petId: number, at: number): void;
  /** How many keys the table holds now (expired ones included until they are pushed out). */
  readonly size: number;
}

interface Entry {
  readonly petId: number;
  readonly at: number;
}

/** An empty key table that keeps at most `capacity` keys. */
export function createKeyTable(capacity: number = DEFAULT_MAX_IDEMPOTENCY_KEYS): KeyTable {
  if (!Number.isSafeInteger(capacity) || capacity < 1) {
    throw new RangeError(`Cannot keep idempotency keys: the capacity must be a positive integer, got ${capacity}`);
  }
  const entries = new Map<string, Entry>();
  const ring: (string | undefined)[] = new Array(capacity);
  let oldest = 0;
  return {
    find(key, now) {
      const entry = entries.get(tableKey(key));
      return entry !== undefined && now - entry.at < IDEMPOTENCY_KEY_TTL_MS ? entry.petId : undefined;
    },
    add(key, petId, at) {
      const name = tableKey(key);
      if (entries.has(name)) return;
      const forgotten = ring[oldest];
      if (forgotten !== undefined) entries.delete(forgotten);
      ring[oldest] = name;
      oldest = (oldest + 1) % capacity;
      entries.set(name, { petId, at });
    },
    get size() {
      return entries.size;
    },
  };
}

/** One string for a client's key: the digest has no newline, so no two pairs give the same string. */
export function tableKey(key: IdempotencyKey): string {
  return `${key.client}\n${key.key}`;
}
