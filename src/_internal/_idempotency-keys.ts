/**
 * @module
 * Private, shared by the memory and JSON-file stores: the idempotency keys of recent creates, each
 * with the id of the pet it produced, kept 24 hours and at most `capacity` at once.
 *
 * Memory stays bounded: at the capacity, a new key makes the table forget the oldest key of the
 * client (API key) that will hold the most once the key is in, even before its 24 hours are up,
 * and a retry with a forgotten key creates a new pet. So a client never loses a key to another
 * that holds no more than it does: one client's burst of keyed creates forgets only its own keys,
 * and `n` clients that keep creating end with about `capacity / n` of their latest keys each. Each
 * client's keys wait in a queue of their own, oldest first, and clients are grouped by how many
 * keys they hold, so the largest is found at once however many there are.
 */
import type { IdempotencyKey } from "../store.ts";
import { IDEMPOTENCY_KEY_TTL_MS } from "../store.ts";

/**
 * The default number of keys a store keeps, shared by every API key. Measured with 100,000 keys on
 * Bun, Node and Deno: 20–25 MB of heap with UUID keys, 42–44 MB (60–70 MB of RSS) with keys of the
 * longest, 255 characters.
 */
export const DEFAULT_MAX_IDEMPOTENCY_KEYS = 100_000;

/** Recent idempotency keys and the pets they produced. */
export interface KeyTable {
  /** The id of the pet `key` produced, unless it is unknown or older than 24 hours at `now`. */
  find(key: IdempotencyKey, now: number): number | undefined;
  /** Remembers that `key` produced pet `petId` at time `at` (milliseconds since the epoch). */
  add(key: IdempotencyKey, petId: number, at: number): void;
  /** The keys younger than 24 hours at `now`, by the id of the pet each produced, for an export. */
  byPet(now: number): Map<number, { readonly client: string; readonly key: string; readonly at: number }>;
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
  const queues = new Map<string, KeyQueue>();
  const holders = createHolders();
  const forgetOldestOf = (client: string) => {
    const queue = queues.get(client)!;
    entries.delete(takeOldest(queue));
    holders.move(client, sizeOf(queue) + 1, sizeOf(queue));
    if (sizeOf(queue) === 0) queues.delete(client);
  };
  return {
    find(key, now) {
      const entry = entries.get(tableKey(key));
      return entry !== undefined && now - entry.at < IDEMPOTENCY_KEY_TTL_MS ? entry.petId : undefined;
    },
    add(key, petId, at) {
      const name = tableKey(key);
      if (entries.has(name)) return;
      let queue = queues.get(key.client);
      if (entries.size >= capacity) {
        // The client that will hold the most once this key is in gives one up: itself, if it ties.
        const held = queue === undefined ? 0 : sizeOf(queue);
        forgetOldestOf(held > 0 && held + 1 >= holders.most() ? key.client : holders.largest()!);
      }
      queue = queues.get(key.client);
      if (queue === undefined) queues.set(key.client, (queue = { names: [], head: 0 }));
      queue.names.push(name);
      holders.move(key.client, sizeOf(queue) - 1, sizeOf(queue));
      entries.set(name, { petId, at });
    },
    byPet(now) {
      const young = new Map<number, { client: string; key: string; at: number }>();
      for (const [name, { petId, at }] of entries) {
        const split = name.indexOf("\n");
        if (now - at < IDEMPOTENCY_KEY_TTL_MS) young.set(petId, { client: name.slice(0, split), key: name.slice(split + 1), at });
      }
      return young;
    },
    get size() {
      return entries.size;
    },
  };
}

/** One client's keys (their table names), oldest first from `head`. */
interface KeyQueue {
  readonly names: string[];
  head: number;
}

function sizeOf(queue: KeyQueue): number {
  return queue.names.length - queue.head;
}

/** Removes and returns the oldest name; the array is compacted now and then, not on every call. */
function takeOldest(queue: KeyQueue): string {
  const name = queue.names[queue.head]!;
  queue.names[queue.head++] = ""; // let the string go
  if (queue.head >= 1024 && queue.head * 2 >= queue.names.length) {
    queue.names.splice(0, queue.head);
    queue.head = 0;
  }
  return name;
}

/** Clients grouped by how many keys each holds. */
interface Holders {
  /** Records that `client` went from holding `from` keys to `to`. */
  move(client: string, from: number, to: number): void;
  /** A client that holds the most keys, if any holds one. */
  largest(): string | undefined;
  /** How many keys the largest holds. */
  most(): number;
}

function createHolders(): Holders {
  const bySize = new Map<number, Set<string>>();
  let most = 0;
  return {
    move(client, from, to) {
      const group = bySize.get(from);
      group?.delete(client);
      if (group?.size === 0) bySize.delete(from);
      if (to > 0) {
        const target = bySize.get(to) ?? new Set<string>();
        bySize.set(to, target.add(client));
      }
      // Sizes change by one at a time, so the next largest is at most one step down.
      most = Math.max(most, to);
      while (most > 0 && !bySize.has(most)) most--;
    },
    largest: () => bySize.get(most)?.values().next().value,
    most: () => most,
  };
}

/** One string for a client's key: the digest has no newline, so no two pairs give the same string. */
export function tableKey(key: IdempotencyKey): string {
  return `${key.client}\n${key.key}`;
}
