/**
 * @module
 * Private to the rate limiter: the theoretical arrival times of client addresses (requests without a
 * valid key), at most `max` of them plus one overflow entry. When the table is full, entries whose
 * bucket is full again are dropped (forgetting them changes nothing), at most once a second; if
 * none is, new addresses share the overflow entry until room is made.
 */

/** The theoretical arrival times of client addresses, at most `max` of them plus the shared overflow. */
export interface AddressTable {
  /** The entry an address is counted under: its own, or the shared overflow while the table is full. */
  countedAs(address: string, now: number): string;
  tatOf(entry: string): number;
  set(entry: string, tat: number): void;
  /** Moves an entry's time to at least `tat` (the shared counts'), if the table holds it or has room for it. */
  raise(entry: string, tat: number): void;
}

/** The entry new addresses share while the table is full; no address is empty. */
export const OVERFLOW = "";
const SWEEP_INTERVAL_MS = 1000;

/** An empty table of at most `max` addresses. */
export function createAddressTable(max: number): AddressTable {
  const tats = new Map<string, number>();
  let nextSweep = 0;
  const hasRoom = () => tats.size - (tats.has(OVERFLOW) ? 1 : 0) < max;
  return {
    countedAs(address, now) {
      if (tats.has(address) || hasRoom()) return address;
      if (now >= nextSweep) {
        nextSweep = now + SWEEP_INTERVAL_MS;
        // A bucket full again is the same as no entry: dropping it forgets nothing.
        for (const [entry, tat] of tats) if (tat <= now && entry !== OVERFLOW) tats.delete(entry);
      }
      return hasRoom() ? address : OVERFLOW;
    },
    tatOf: (entry) => tats.get(entry) ?? 0,
    set: (entry, tat) => void tats.set(entry, tat),
    raise(entry, tat) {
      const held = tats.get(entry);
      if (held !== undefined ? tat > held : entry === OVERFLOW || hasRoom()) tats.set(entry, tat);
    },
  };
}
