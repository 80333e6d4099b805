/**
 * @module
 * Private to the rate limiter: the theoretical arrival times of keys, by name, so that a key's count
 * outlives a reload of the keys (`KeyRing.replace`), whatever order the new keys come in. One number
 * per name; past the ring's size (names the app no longer accepts), entries whose bucket is full
 * again are dropped, at most once a second.
 */
import type { KeyRing } from "../../mod.ts";

/** The theoretical arrival time of each key by name (ms, on performance.now()'s clock); absent is a full bucket. */
export interface KeyTable {
  tatOf(name: string): number;
  set(name: string, tat: number, now: number): void;
  /** Moves a name's time to at least `tat` (the shared counts'). */
  raise(name: string, tat: number, now: number): void;
}

const SWEEP_INTERVAL_MS = 1000;

/** An empty table for the keys of `keys`. */
export function createKeyTable(keys: KeyRing): KeyTable {
  const tats = new Map<string, number>();
  let nextSweep = 0;
  const table: KeyTable = {
    tatOf: (name) => tats.get(name) ?? 0,
    set(name, tat, now) {
      tats.set(name, tat);
      if (tats.size <= keys.size || now < nextSweep) return;
      nextSweep = now + SWEEP_INTERVAL_MS;
      // A bucket full again is the same as no entry: dropping it forgets nothing.
      for (const [entry, entryTat] of tats) if (entryTat <= now) tats.delete(entry);
    },
    raise(name, tat, now) {
      if (tat > table.tatOf(name)) table.set(name, tat, now);
    },
  };
  return table;
}
