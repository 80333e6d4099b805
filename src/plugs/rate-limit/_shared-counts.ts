/**
 * @module
 * Private to the rate limiter: its counts shared through a `RateCounters` store (`counters.ts`), as
 * a gateway's cluster policy shares them. The limiter decides every request from its own memory as
 * ever, so no answer waits for the store; this notes what each party took since the last exchange
 * and, at the first request after a quiet spell and then every `syncMs` while requests come, sends
 * it to the store and takes back what every instance took, in one call. A party's time is
 * then the later of its own and the shared count's: sharing never lets an instance allow more than
 * it would alone.
 *
 * How exact: within an exchange interval each instance sees only its own requests, so N instances
 * may together allow up to N - 1 intervals' worth of one instance's traffic more than the limit (a
 * longer `syncMs`: fewer statements, more overshoot); over time the shared count holds the rate.
 *
 * Faults: an exchange that fails, or has not answered within `EXCHANGE_DEADLINE_MS`, leaves the
 * instance counting alone: one line says so, what the failed exchange carried stays in its memory
 * only (a client is never charged twice for an outage), the time is reported, and the next exchange
 * an interval later tries again, requests or not; the first that succeeds says so in one line.
 * Exchanges start at most once an interval, and a slow store has at most three waiting at once.
 */
import type { PlugReport } from "../../types.ts";
import type { CounterBounds, CounterUse, RateCounters } from "./counters.ts";
import { OVERFLOW } from "./_address-table.ts";
import { addressCounterId, keyCounterId, OVERFLOW_COUNTER_ID } from "./_counter-ids.ts";

/** How long an exchange may take before the limiter counts alone. */
export const EXCHANGE_DEADLINE_MS = 5000;

/** The most exchanges waiting for the store at once. */
const MAX_IN_FLIGHT = 3;

/** What the limiter tells the sharing of each request, and what the metrics read. */
export interface SharedCounts {
  /** Notes an admitted request of the key named `key` (or, without one, of the address table's `entry`) at `now`. */
  admitted(key: string | undefined, entry: string, now: number): void;
  /** Notes a refused request: its party's shared count is read back at the next exchange. */
  refused(key: string | undefined, entry: string): void;
  /** Whether the counts are shared now, and how long this instance has counted alone. */
  report(): PlugReport;
}

/** What sharing needs from the limiter. */
export interface SharingSetup {
  readonly counters: RateCounters;
  readonly syncMs: number;
  readonly logger: Pick<Console, "warn">;
  readonly signal: AbortSignal | undefined;
  /** Milliseconds of a bucket one request takes (`seconds / requests`). */
  readonly costMs: number;
  readonly maxAddresses: number;
  /** Moves the time of the key named `key` (or, without one, of an address entry) to at least `tat`. */
  raise(key: string | undefined, entry: string, tat: number): void;
}

/** What one party took since the last exchange: milliseconds of its bucket, from its first admitted request on. */
interface Taken {
  cost: number;
  first: number;
}

/** The parties of one exchange, in the order of its uses: a key's name, or an address entry. */
interface Party {
  readonly key: string | undefined;
  readonly entry: string;
}

/** Shares a limiter's counts through `setup.counters`. */
export function shareCounts(setup: SharingSetup): SharedCounts {
  const { counters, syncMs, logger, signal, costMs, maxAddresses } = setup;
  const bounds: CounterBounds = { maxAddresses, overflowId: OVERFLOW_COUNTER_ID };
  // By name: what a key took is counted under the same name after a reload of the keys, whatever their order.
  let keys = new Map<string, Taken>();
  let addresses = new Map<string, Taken>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastSent = -Infinity;
  let inFlight = 0;
  // Exchanges are numbered as they start; only one started after the last that decided may decide
  // anew, so a slow answer to an old exchange never undoes what a newer one found.
  let started = 0;
  let decided = 0;
  let aloneSince: number | undefined;
  let aloneMs = 0;
  const stopped = () => signal?.aborted === true;
  signal?.addEventListener("abort", () => clearTimeout(timer), { once: true });

  /** Sets the timer of the next exchange, by default `syncMs` after the last one started (at once after a quiet spell). */
  function schedule(delay = Math.max(0, lastSent + syncMs - performance.now())): void {
    if (stopped()) return;
    timer = setTimeout(() => void exchange(), delay);
    // Where the runtime's timers can let the process end (Node's and Bun's `unref`), an exchange
    // does not hold it: an app that is done exits without waiting for one.
    (timer as { unref?: () => void }).unref?.();
  }

  /** The address's own entry, or the overflow's once as many as the bound have taken something since the last exchange. */
  function addressTaken(entry: string): Taken {
    let taken = addresses.get(entry);
    if (taken === undefined) {
      if (addresses.size >= maxAddresses) return addressTaken(OVERFLOW);
      taken = { cost: 0, first: 0 };
      addresses.set(entry, taken);
    }
    return taken;
  }

  /** The key's entry of what it took since the last exchange. */
  function keyTaken(name: string): Taken {
    let taken = keys.get(name);
    if (taken === undefined) {
      taken = { cost: 0, first: 0 };
      keys.set(name, taken);
    }
    return taken;
  }

  /** Everything noted since the last exchange, as its uses and their parties; the notes start afresh. */
  function take(now: number): { uses: CounterUse[]; parties: Party[] } {
    const [sentKeys, sentAddresses] = [keys, addresses];
    keys = new Map();
    addresses = new Map();
    const uses: CounterUse[] = [];
    const parties: Party[] = [];
    for (const [name, { cost, first }] of sentKeys) {
      uses.push({ id: keyCounterId(name), address: false, costMs: cost, sinceMs: cost > 0 ? now - first : 0 });
      parties.push({ key: name, entry: "" });
    }
    for (const [entry, { cost, first }] of sentAddresses) {
      uses.push({ id: entry === OVERFLOW ? OVERFLOW_COUNTER_ID : addressCounterId(entry), address: true, costMs: cost, sinceMs: cost > 0 ? now - first : 0 });
      parties.push({ key: undefined, entry });
    }
    return { uses, parties };
  }

  /** Raises every party to the shared count, plus what it took since the exchange was sent. */
  function takeBack(parties: readonly Party[], taken: readonly number[], at: number): void {
    parties.forEach(({ key, entry }, i) => {
      const since = key === undefined ? addresses.get(entry) : keys.get(key);
      setup.raise(key, entry, at + taken[i]! + (since?.cost ?? 0));
    });
  }

  async function exchange(): Promise<void> {
    timer = undefined;
    if (stopped()) return;
    // An exchange the store has not answered yet does not hold the next one back (a connection
    // stuck while the database went away must not delay the first to reach it when it is back),
    // but no more than `MAX_IN_FLIGHT` wait at once.
    if (inFlight >= MAX_IN_FLIGHT) return schedule(syncMs);
    lastSent = performance.now();
    const seq = ++started;
    inFlight++;
    // Taken out of the notes for good: what a failed exchange carried stays in this instance's
    // counts only, so a client is not charged for an outage twice once the store is back.
    const { uses, parties } = take(lastSent);
    try {
      const taken = await withDeadline(Promise.resolve().then(() => counters.exchange(uses, bounds)), EXCHANGE_DEADLINE_MS);
      const problem = answerProblem(taken, uses.length);
      if (problem !== undefined) throw new Error(problem);
      takeBack(parties, taken, performance.now());
      if (seq > decided && !stopped()) {
        decided = seq;
        sharedAgain();
      }
    } catch (error) {
      if (seq > decided && !stopped()) {
        decided = seq;
        countAlone(error);
      }
    } finally {
      inFlight--;
    }
    // While counting alone, the store is asked every interval, requests or not, so the counts are
    // shared again as soon as it answers; otherwise a quiet instance holds no timer.
    if (aloneSince !== undefined && timer === undefined) schedule();
  }

  function countAlone(error: unknown): void {
    if (aloneSince !== undefined) return;
    aloneSince = performance.now();
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn(`animal-store: rate limits are counted by this instance alone: the shared counts could not be exchanged (${reason}); trying again every ${syncMs} ms`);
  }

  function sharedAgain(): void {
    if (aloneSince === undefined) return;
    const alone = performance.now() - aloneSince;
    aloneMs += alone;
    aloneSince = undefined;
    logger.warn(`animal-store: rate limits are shared again, after ${(alone / 1000).toFixed(1)} s counted by this instance alone`);
  }

  return {
    admitted(key, entry, now) {
      const taken = key === undefined ? addressTaken(entry) : keyTaken(key);
      if (taken.cost === 0) taken.first = now;
      taken.cost += costMs;
      if (timer === undefined) schedule();
    },
    refused(key, entry) {
      if (key === undefined) addressTaken(entry);
      else keyTaken(key);
      if (timer === undefined) schedule();
    },
    report: () => ({
      gauges: {
        rate_limit_shared: { value: aloneSince === undefined ? 1 : 0, help: "1 while this instance shares its rate-limit counts, 0 while it counts alone." },
        rate_limit_alone_seconds: {
          value: (aloneMs + (aloneSince === undefined ? 0 : performance.now() - aloneSince)) / 1000,
          help: "Seconds this instance has counted rate limits alone since it started, the shared counts out of reach.",
        },
      },
    }),
  };
}

/** What is wrong with an exchange's answer, or `undefined`: one number of at least 0 per use. */
function answerProblem(taken: unknown, uses: number): string | undefined {
  if (!Array.isArray(taken) || taken.length !== uses) return `the counter store answered ${Array.isArray(taken) ? taken.length : "no"} numbers for ${uses} uses`;
  const wrong = taken.find((value) => typeof value !== "number" || !(value >= 0) || !Number.isFinite(value));
  return wrong === undefined ? undefined : `the counter store answered ${String(wrong)}, not a number of milliseconds`;
}

/** Rejects when `promise` has not settled within `ms`; a later rejection of it is ignored. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the counter store did not answer within ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}
