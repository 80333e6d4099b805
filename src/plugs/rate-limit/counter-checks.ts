/**
 * @module
 * The contract of a `RateCounters` store (`counters.ts`), as named checks any test runner can
 * register, as `animal-store/testing` has for pet stores. Each check opens fresh, empty counts with
 * `open` and throws `Counter contract broken: …` at the first broken promise. Costs are whole
 * minutes, so the milliseconds a busy machine takes between calls never decide a check; where time
 * must pass, a check waits for the state it needs, up to 10 s.
 *
 * ```ts
 * import { test } from "node:test";
 * import { rateCounterChecks } from "animal-store/rate-limit";
 * for (const check of rateCounterChecks(() => openMyCounters())) test(check.name, check.run);
 * ```
 */
import type { CounterBounds, CounterUse, RateCounters } from "./counters.ts";

/** One behaviour of the counter contract; `run` rejects when the store breaks it. */
export interface CounterCheck {
  readonly name: string;
  readonly run: () => Promise<void>;
}

const MINUTE = 60_000;
const OVERFLOW = "address:overflow";
const BOUNDS: CounterBounds = { maxAddresses: 1000, overflowId: OVERFLOW };

/** The contract as checks against counts made by `open` (each check gets fresh, empty ones). */
export function rateCounterChecks(open: () => Promise<RateCounters>): CounterCheck[] {
  const check = (name: string, body: (counters: RateCounters) => Promise<void>): CounterCheck => ({ name, run: async () => body(await open()) });
  return [
    check("an exchange without uses answers none; a party never counted has a full bucket (0)", emptyAndUnknown),
    check("a use takes its cost: the answer is the milliseconds of the bucket taken", useTakesItsCost),
    check("uses add up across exchanges, as from several instances", usesAddUp),
    check("a use that took nothing reads the count and changes nothing", readsOnly),
    check("the bucket drains from the first request on: a use begun longer ago than its cost leaves it full", drainsFromFirst),
    check("a taken bucket drains with time, to 0", drainsWithTime),
    check("every id is counted apart: ids differing in case, kind, a space or length do not share a count", idsApart),
    check("an exchange of 500 uses answers each, in order", manyUses),
    check("concurrent exchanges lose no use", concurrentExchanges),
    check("at most maxAddresses addresses have counts of their own; new ones past them, and reads of them, share the overflow; keys are not bounded", addressesBounded),
    check("an address whose bucket is full again makes room for a new one", fullBucketMakesRoom),
  ];
}

/** Throws, naming the broken promise, unless `holds`. */
function expectTrue(holds: boolean, message: string): void {
  if (!holds) throw new Error(`Counter contract broken: ${message}`);
}

/** A use of `id` taking `costMs`, begun `sinceMs` ago. */
function use(id: string, costMs: number, sinceMs = 0, address = false): CounterUse {
  return { id, address, costMs, sinceMs };
}

/** Exchanges `uses`, checking the answer is one number per use. */
async function exchange(counters: RateCounters, uses: readonly CounterUse[], bounds: CounterBounds = BOUNDS): Promise<readonly number[]> {
  const answer = await counters.exchange(uses, bounds);
  expectTrue(Array.isArray(answer) && answer.length === uses.length, `exchange(${uses.length} uses) should answer ${uses.length} numbers, got ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * A check's clock: `expectTaken` holds an answer to `expected` milliseconds taken, less at most the
 * milliseconds since the clock started (the bucket drains meanwhile), to the millisecond.
 */
function checkClock(): { expectTaken(what: string, expected: number, taken: number): void } {
  const started = performance.now();
  return {
    expectTaken(what, expected, taken) {
      const elapsed = performance.now() - started;
      expectTrue(taken <= expected + 1 && taken >= expected - elapsed - 1, `${what} should answer ${expected} ms taken (less the ${elapsed.toFixed(0)} ms the check took), got ${taken}`);
    },
  };
}

async function emptyAndUnknown(counters: RateCounters): Promise<void> {
  const none = await counters.exchange([], BOUNDS);
  expectTrue(Array.isArray(none) && none.length === 0, `exchange([]) should answer [], got ${JSON.stringify(none)}`);
  const answer = await exchange(counters, [use("key:never", 0), use("address:192.0.2.1", 0, 0, true)]);
  expectTrue(answer[0] === 0 && answer[1] === 0, `parties never counted should answer [0, 0], got ${JSON.stringify(answer)}`);
}

async function useTakesItsCost(counters: RateCounters): Promise<void> {
  const clock = checkClock();
  const [taken = -1] = await exchange(counters, [use("key:a", MINUTE)]);
  clock.expectTaken("a first use of a minute", MINUTE, taken);
}

async function usesAddUp(counters: RateCounters): Promise<void> {
  const clock = checkClock();
  await exchange(counters, [use("key:a", MINUTE)]);
  const [taken = -1] = await exchange(counters, [use("key:a", MINUTE)]);
  clock.expectTaken("two uses of a minute", 2 * MINUTE, taken);
}

async function readsOnly(counters: RateCounters): Promise<void> {
  const clock = checkClock();
  await exchange(counters, [use("key:a", MINUTE)]);
  await exchange(counters, [use("key:a", 0)]);
  const [taken = -1] = await exchange(counters, [use("key:a", 0)]);
  clock.expectTaken("a use of a minute, then two reads", MINUTE, taken);
}

async function drainsFromFirst(counters: RateCounters): Promise<void> {
  const [fresh = -1] = await exchange(counters, [use("key:a", 1000, 10_000)]);
  expectTrue(fresh === 0, `a use of 1000 ms begun 10,000 ms ago on a full bucket should leave it full (0), got ${fresh}`);
  // On a bucket taken past now, the drain is already counted: the cost adds up whole.
  const clock = checkClock();
  await exchange(counters, [use("key:b", MINUTE)]);
  const [taken = -1] = await exchange(counters, [use("key:b", 1000, 10_000)]);
  clock.expectTaken("a minute, then 1000 ms begun 10,000 ms ago", MINUTE + 1000, taken);
}

async function drainsWithTime(counters: RateCounters): Promise<void> {
  const [taken = 0] = await exchange(counters, [use("key:a", 300)]);
  expectTrue(taken > 0 && taken <= 300, `a use of 300 ms should answer up to 300 ms taken, got ${taken}`);
  const drained = await waitFor(async () => (await exchange(counters, [use("key:a", 0)]))[0] === 0);
  expectTrue(drained, "a bucket 300 ms taken should be full again (0) within 10 s");
}

async function idsApart(counters: RateCounters): Promise<void> {
  const clock = checkClock();
  const ids = ["key:a", "key:A", "key:a ", "key:aa", `key:${"a".repeat(300)}`, "address:a"];
  await exchange(counters, ids.map((id) => use(id, MINUTE, 0, id.startsWith("address:"))));
  const taken = await exchange(counters, ids.map((id) => use(id, 0, 0, id.startsWith("address:"))));
  ids.forEach((id, i) => clock.expectTaken(`"${id.slice(0, 20)}", one use of a minute among ${ids.length} ids`, MINUTE, taken[i]!));
}

async function manyUses(counters: RateCounters): Promise<void> {
  const clock = checkClock();
  const taken = await exchange(counters, Array.from({ length: 500 }, (_, i) => use(`key:${i}`, MINUTE + i * 1000)));
  taken.forEach((each, i) => clock.expectTaken(`use ${i} of 500`, MINUTE + i * 1000, each));
}

async function concurrentExchanges(counters: RateCounters): Promise<void> {
  const clock = checkClock();
  await Promise.all(Array.from({ length: 20 }, () => exchange(counters, [use("key:a", MINUTE), use("address:192.0.2.1", MINUTE, 0, true)])));
  const taken = await exchange(counters, [use("key:a", 0), use("address:192.0.2.1", 0, 0, true)]);
  clock.expectTaken("20 concurrent uses of a minute by a key", 20 * MINUTE, taken[0]!);
  clock.expectTaken("20 concurrent uses of a minute by an address", 20 * MINUTE, taken[1]!);
}

async function addressesBounded(counters: RateCounters): Promise<void> {
  const clock = checkClock();
  const bounds: CounterBounds = { maxAddresses: 3, overflowId: OVERFLOW };
  const address = (n: number, cost = MINUTE) => use(`address:192.0.2.${n}`, cost, 0, true);
  const within = await exchange(counters, [address(1), address(2), address(3)], bounds);
  within.forEach((taken, i) => clock.expectTaken(`address ${i + 1} of 3 within the bound, its own minute`, MINUTE, taken));
  clock.expectTaken("a fourth address, the overflow's first minute", MINUTE, (await exchange(counters, [address(4)], bounds))[0]!);
  await exchange(counters, [address(5)], bounds);
  clock.expectTaken("the overflow's own use after a fifth address's", 3 * MINUTE, (await exchange(counters, [use(OVERFLOW, MINUTE, 0, true)], bounds))[0]!);
  clock.expectTaken("a read of the fourth address, the overflow's", 3 * MINUTE, (await exchange(counters, [address(4, 0)], bounds))[0]!);
  clock.expectTaken("a read of the first address, still its own", MINUTE, (await exchange(counters, [address(1, 0)], bounds))[0]!);
  clock.expectTaken("a key past the addresses' bound, its own", MINUTE, (await exchange(counters, [use("key:a", MINUTE)], bounds))[0]!);
}

async function fullBucketMakesRoom(counters: RateCounters): Promise<void> {
  const bounds: CounterBounds = { maxAddresses: 1, overflowId: OVERFLOW };
  await exchange(counters, [use("address:192.0.2.1", 200, 0, true)], bounds);
  const drained = await waitFor(async () => (await exchange(counters, [use("address:192.0.2.1", 0, 0, true)], bounds))[0] === 0);
  expectTrue(drained, "an address 200 ms taken should be full again (0) within 10 s");
  const clock = checkClock();
  await exchange(counters, [use("address:192.0.2.2", MINUTE, 0, true)], bounds);
  // Had the second address gone to the overflow, the third would find a minute there already.
  clock.expectTaken("a third address, the overflow's first minute", MINUTE, (await exchange(counters, [use("address:192.0.2.3", MINUTE, 0, true)], bounds))[0]!);
  clock.expectTaken("a read of the second address, its own minute", MINUTE, (await exchange(counters, [use("address:192.0.2.2", 0, 0, true)], bounds))[0]!);
}

/** Asks `state` every 50 ms until it holds, for up to 10 s; whether it held. */
async function waitFor(state: () => Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    if (await state()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
