/**
 * @module
 * Where a rate limit's counts are shared between instances: the `RateCounters` interface a counter
 * store implements, and the one kept in memory. Each limiter keeps counting every request in its own
 * memory (an answer never waits for a store); every `syncMs` while requests come it sends the store
 * what it took since the last exchange and takes back what every instance took, in one call.
 *
 * A store keeps one number per party: the moment its bucket is full again (`fullAt`, on the store's
 * own clock; a party without one has a full bucket). An exchange adds each use as GCRA does,
 * `fullAt = max(fullAt, now − sinceMs) + costMs`, and answers `max(0, fullAt − now)`: how many
 * milliseconds of the bucket are taken now, a duration, so the instances' clocks never meet. A
 * party whose bucket is full again may be forgotten at any time. PostgreSQL's is
 * `openPostgresRateCounters` (`animal-store/postgres-store`); `rateCounterChecks` is the contract.
 */

/** One party's use of its budget since the limiter's last exchange. */
export interface CounterUse {
  /** Who: an opaque, stable id that never holds an API key (`key:shop`, a key's name; `address:192.0.2.1`); distinct within one exchange. */
  readonly id: string;
  /** Whether it is a client address: at most `maxAddresses` of those have counts of their own. */
  readonly address: boolean;
  /** Milliseconds of its bucket the requests admitted since the last exchange took; 0 when it was only refused (then it is only read). */
  readonly costMs: number;
  /** How many milliseconds before the exchange the first of those requests was admitted: the bucket drained from then on. */
  readonly sinceMs: number;
}

/** What bounds the shared counts: the same for every exchange of one limiter. */
export interface CounterBounds {
  /** The most addresses with counts of their own at once; a new one past them is counted under `overflowId`. */
  readonly maxAddresses: number;
  /** The count every address past `maxAddresses` shares (an id no key or address has). */
  readonly overflowId: string;
}

/** A store of rate-limit counts that several instances share. */
export interface RateCounters {
  /**
   * Adds each use to its party's count and answers, in the order of `uses`, how many milliseconds of
   * each party's bucket are taken now (an address past the bound: the overflow's). Rejects when the
   * store cannot be reached or cannot take the uses; the limiter then counts alone until an exchange
   * succeeds again. Without uses (the limiter asking while it counts alone), resolves `[]` only if
   * uses would be taken now.
   */
  exchange(uses: readonly CounterUse[], bounds: CounterBounds): Promise<readonly number[]>;
}

/** One party's count in memory: when its bucket is full again (ms, `performance.now()`), and whether it is an address. */
interface Count {
  fullAt: number;
  readonly address: boolean;
}

const SWEEP_INTERVAL_MS = 1000;

/**
 * Counts kept in this process's memory: the apps given one share their limits (several apps in one
 * process, tests), and it is the plainest reading of the contract.
 */
export function createMemoryCounters(): RateCounters {
  const counts = new Map<string, Count>();
  let addresses = 0;
  let nextSweep = 0;

  /** Forgets every party whose bucket is full again, at most once a second. */
  function sweep(now: number): void {
    if (now < nextSweep) return;
    nextSweep = now + SWEEP_INTERVAL_MS;
    for (const [id, count] of counts) {
      if (count.fullAt > now) continue;
      counts.delete(id);
      if (count.address) addresses--;
    }
  }

  /** Whether a new address may have a count of its own: there is room, or there is once full buckets are forgotten. */
  function hasRoom(bounds: CounterBounds, now: number): boolean {
    if (addresses < bounds.maxAddresses) return true;
    sweep(now);
    return addresses < bounds.maxAddresses;
  }

  /** The count a use goes to: its own, a new one while there is room, else the overflow's. */
  function countOf(use: CounterUse, bounds: CounterBounds, now: number): Count {
    const own = counts.get(use.id);
    if (own !== undefined) return own;
    const address = use.address && use.id !== bounds.overflowId;
    const id = address && !hasRoom(bounds, now) ? bounds.overflowId : use.id;
    const count = counts.get(id) ?? { fullAt: -Infinity, address: id === use.id && address };
    // A use that takes nothing is only read: a party without a count has a full bucket.
    if (use.costMs > 0 && !counts.has(id)) {
      counts.set(id, count);
      if (count.address) addresses++;
    }
    return count;
  }

  return {
    exchange: async (uses, bounds) =>
      uses.map((use) => {
        const now = performance.now();
        const count = countOf(use, bounds, now);
        if (use.costMs > 0) count.fullAt = Math.max(count.fullAt, now - use.sinceMs) + use.costMs;
        return Math.max(0, count.fullAt - now);
      }),
  };
}
