/**
 * @module
 * The rate limit with its counts shared through a counter store, in process: apps on one store of
 * counts give a key one budget, what reaches the store holds no key and one id per address however
 * it is spelt, and a store that fails or hangs leaves each app counting alone (one line when that
 * starts, one when it ends, the time reported) until an exchange succeeds again.
 */
import { describe, expect, test } from "bun:test";
import type { ApiKey, App, ConnectionInfo, KeyRing, NamedReport, Plug, TrustedProxyHeader } from "../src/mod.ts";
import type { CounterUse, RateCounters, RateLimit, RateLimitOptions } from "../src/plugs/rate-limit/mod.ts";
import { createApp, createKeyRing, createMemoryStore } from "../src/mod.ts";
import { createMemoryCounters, rateLimit } from "../src/plugs/rate-limit/mod.ts";
import { AUTH, KEY } from "./helpers.ts";

const OTHER_KEY = "second-key";
const HOUR = 3_600_000;
/** One request an hour after a burst of four: nothing refills within a test. */
const HOURLY: RateLimit = { requests: 1, seconds: 3600, burst: 4 };
const SYNC_MS = 10;

/** A counter store that records every exchange and can be made to fail or hang. */
interface Recording {
  readonly counters: RateCounters;
  /** Every exchange's uses, in the order they were asked. */
  readonly exchanges: CounterUse[][];
  /** How many exchanges have settled (answered or failed). */
  settled(): number;
  /** `up` passes exchanges on, `down` rejects them, `hang` never answers. */
  mode: "up" | "down" | "hang";
}

function recording(inner: RateCounters = createMemoryCounters()): Recording {
  const exchanges: CounterUse[][] = [];
  let settled = 0;
  const record: Recording = {
    exchanges,
    settled: () => settled,
    mode: "up",
    counters: {
      async exchange(uses, bounds) {
        exchanges.push([...uses]);
        try {
          if (record.mode === "down") throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
          if (record.mode === "hang") await new Promise(() => {});
          return await inner.exchange(uses, bounds);
        } finally {
          settled++;
        }
      },
    },
  };
  return record;
}

/** Lines a logger was given. */
function lines(): { logger: Pick<Console, "warn">; said: string[] } {
  const said: string[] = [];
  return { logger: { warn: (line: string) => void said.push(line) }, said };
}

/** An app limited by `limit`, sharing its counts as `options` says, with a plug that reads the reports. */
function sharedApp(limit: RateLimit, options: RateLimitOptions, more: { apiKeys?: readonly ApiKey[] | KeyRing; trustProxy?: TrustedProxyHeader } = {}): App & { reports(): readonly NamedReport[] } {
  let reports: () => readonly NamedReport[] = () => [];
  const reader: Plug = (setup) => ((reports = setup.reports), { name: "reader" });
  const app = createApp({ store: createMemoryStore(), apiKeys: more.apiKeys ?? [KEY, OTHER_KEY], plugs: [rateLimit(limit, { syncMs: SYNC_MS, ...options }), reader], ...(more.trustProxy === undefined ? {} : { trustProxy: more.trustProxy }) });
  return { ...app, reports: () => reports() };
}

const FROM: ConnectionInfo = { remoteAddr: { hostname: "192.0.2.1" } };

async function statuses(app: App, count: number, headers: Record<string, string> = AUTH): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await app.fetch(new Request("http://pets.test/v1/pets", { headers }), FROM)).status);
  return seen;
}

/** Waits until `state` holds, asking every 5 ms, for up to 10 s. */
async function until(state: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!state()) {
    if (performance.now() > deadline) throw new Error(`waited 10 s for ${what}`);
    await Bun.sleep(5);
  }
}

/** The milliseconds of buckets every recorded exchange added. */
function totalCost(record: Recording): number {
  return record.exchanges.flat().reduce((sum, use) => sum + use.costMs, 0);
}

/** The id a key's requests reached the store under: the one key id of the recorded uses. */
function keyIdOf(record: Recording): string {
  const ids = new Set(record.exchanges.flat().filter((use) => use.id.startsWith("key:")).map((use) => use.id));
  expect(ids.size).toBe(1);
  return [...ids][0]!;
}

describe("rate limits shared through a counter store", () => {
  test("two apps on one store give a key one burst: an app refuses once it has heard what the other used", async () => {
    const store = recording();
    const [first, second] = [sharedApp(HOURLY, { counters: store.counters }), sharedApp(HOURLY, { counters: store.counters })];
    expect(await statuses(first!, 4)).toEqual([200, 200, 200, 200]);
    await until(() => totalCost(store) === 4 * HOUR, "the first app's four requests to reach the store");
    // The second app has not heard yet: its first request is its own, then it learns of the other four.
    const settled = store.settled();
    expect(await statuses(second!, 1)).toEqual([200]);
    await until(() => store.settled() > settled, "the second app's exchange");
    expect(await statuses(second!, 2)).toEqual([429, 429]);
    expect(await statuses(first!, 1)).toEqual([429]);
  });

  test("what reaches the store holds no key: a key is key: and its name, the same in another app whatever its place in the keys", async () => {
    const store = recording();
    const named = [{ name: "shop", key: KEY }, { name: "reports", key: OTHER_KEY }];
    const [first, second] = [sharedApp(HOURLY, { counters: store.counters }, { apiKeys: named }), sharedApp(HOURLY, { counters: store.counters }, { apiKeys: named.toReversed() })];
    await statuses(first!, 1);
    await until(() => store.settled() === 1, "an exchange");
    await statuses(second!, 1);
    await until(() => store.settled() === 2, "the other app's exchange");
    const ids = store.exchanges.map((uses) => uses.map((use) => use.id));
    expect(ids).toEqual([["key:shop"], ["key:shop"]]);
    expect(JSON.stringify(store.exchanges)).not.toContain(KEY);
  });

  test("a reload of the keys neither resets nor mixes two keys' shared budgets: each goes on under its name (issue 50)", async () => {
    const store = recording();
    const keys = createKeyRing([{ name: "shop", key: KEY }, { name: "reports", key: OTHER_KEY }]);
    const app = sharedApp(HOURLY, { counters: store.counters }, { apiKeys: keys });
    const reports = { authorization: `Bearer ${OTHER_KEY}` };
    expect(await statuses(app, 3, AUTH)).toEqual([200, 200, 200]);
    expect(await statuses(app, 1, reports)).toEqual([200]);
    await until(() => totalCost(store) === 4 * HOUR, "the four requests to reach the store");
    keys.replace([{ name: "reports", key: OTHER_KEY }, { name: "shop", key: KEY }]);
    expect(await statuses(app, 2, AUTH)).toEqual([200, 429]);
    expect(await statuses(app, 4, reports)).toEqual([200, 200, 200, 429]);
    await until(() => totalCost(store) === 8 * HOUR, "the requests after the reload to reach the store");
    const costs = new Map<string, number>();
    for (const use of store.exchanges.flat()) costs.set(use.id, (costs.get(use.id) ?? 0) + use.costMs);
    expect(costs).toEqual(new Map([["key:shop", 4 * HOUR], ["key:reports", 4 * HOUR]]));
  });

  test("an address reaches the store as the form it is counted in: every spelling of one address one id, IPv6 by its /64, anything else unknown", async () => {
    const store = recording();
    const app = sharedApp({ requests: 1, seconds: 3600, burst: 100 }, { counters: store.counters }, { trustProxy: "x-forwarded" });
    const spellings = ["192.0.2.1", "::ffff:192.0.2.1", "0:0:0:0:0:ffff:c000:201", "2001:db8:1:2::1", "2001:DB8:1:2:ffff::9", "192.000.002.001", `1-${"x".repeat(8192)}`];
    for (const forwarded of spellings) await statuses(app, 1, { "x-forwarded-for": forwarded });
    await until(() => totalCost(store) === spellings.length * HOUR, "every request to reach the store");
    const ids = new Set(store.exchanges.flat().map((use) => use.id));
    expect(ids).toEqual(new Set(["address:192.0.2.1", "address:2001:db8:1:2::/64", "address:unknown"]));
    expect(store.exchanges.flat().every((use) => use.address)).toBe(true);
  });

  test("a refused request takes nothing: its key is only read at the next exchange", async () => {
    const store = recording();
    const app = sharedApp({ requests: 1, seconds: 3600, burst: 1 }, { counters: store.counters });
    expect(await statuses(app, 1)).toEqual([200]);
    await until(() => store.settled() === 1, "an exchange");
    expect(await statuses(app, 1)).toEqual([429]);
    await until(() => store.settled() === 2, "the next exchange");
    expect(store.exchanges[1]).toEqual([{ id: keyIdOf(store), address: false, costMs: 0, sinceMs: 0 }]);
  });

  test("while the store fails, answers are a lone app's (no 5xx) and one line says so; once it answers, one line says so and the report tells how long", async () => {
    const store = recording();
    const { logger, said } = lines();
    const app = sharedApp({ requests: 100, seconds: 1, burst: 5 }, { counters: store.counters, logger });
    const reported = () => app.reports().find((report) => report.plug === "rateLimit")!.report.gauges!;
    expect(reported()["rate_limit_shared"]!.value).toBe(1);
    store.mode = "down";
    const seen: number[] = [];
    // An answer is made without a timer, so the exchanges' timers run only while the test waits.
    while (store.settled() < 3) {
      seen.push(...(await statuses(app, 5)));
      await Bun.sleep(SYNC_MS);
    }
    expect(new Set(seen)).toEqual(new Set([200, 429]));
    expect(said).toEqual([
      `animal-store: rate limits are counted by this instance alone: the shared counts could not be exchanged (connect ECONNREFUSED 127.0.0.1:5432); trying again every ${SYNC_MS} ms`,
    ]);
    expect(reported()["rate_limit_shared"]!.value).toBe(0);
    store.mode = "up";
    const settled = store.settled();
    await statuses(app, 1);
    await until(() => store.settled() > settled, "an exchange after the store came back");
    expect(said.length).toBe(2);
    expect(said[1]).toMatch(/^animal-store: rate limits are shared again, after \d+\.\d s counted by this instance alone$/);
    const alone = reported()["rate_limit_alone_seconds"]!.value;
    expect(alone).toBeGreaterThan(0);
    expect(reported()["rate_limit_shared"]!.value).toBe(1);
    await Bun.sleep(20);
    expect(reported()["rate_limit_alone_seconds"]!.value).toBe(alone);
  });

  test("counting alone, an app asks the store every interval with or without requests, and shares again as soon as it answers", async () => {
    const store = recording();
    const { logger, said } = lines();
    const app = sharedApp(HOURLY, { counters: store.counters, logger });
    store.mode = "down";
    await statuses(app, 1);
    await until(() => said.length === 1, "the line saying the app counts alone");
    const asked = store.exchanges.length;
    await until(() => store.exchanges.length > asked + 2, "the app to ask the store again without a request");
    store.mode = "up";
    await until(() => said.length === 2, "the line saying the counts are shared again");
    expect(store.exchanges.at(-1)).toEqual([]);
  });

  test("what an app counted while the store was out of reach stays its own: a client is not charged for it twice", async () => {
    const store = recording();
    const app = sharedApp(HOURLY, { counters: store.counters, logger: lines().logger });
    store.mode = "down";
    expect(await statuses(app, 3)).toEqual([200, 200, 200]);
    await until(() => totalCost(store) === 3 * HOUR, "the three requests' exchanges to fail");
    await until(() => store.settled() === store.exchanges.length, "the failing exchanges to settle");
    store.mode = "up";
    const before = store.exchanges.length;
    expect(await statuses(app, 2)).toEqual([200, 429]);
    await until(() => store.settled() > before, "an exchange after the store came back");
    expect(store.exchanges.slice(before).flat().reduce((sum, use) => sum + use.costMs, 0)).toBe(HOUR);
  });

  test("an exchange that has not answered within 5 s is given up: the app counts alone and says so once", async () => {
    const store = recording();
    const { logger, said } = lines();
    const app = sharedApp(HOURLY, { counters: store.counters, logger });
    store.mode = "hang";
    expect(await statuses(app, 1)).toEqual([200]);
    await until(() => said.length > 0, "the line saying the app counts alone");
    expect(said).toEqual([`animal-store: rate limits are counted by this instance alone: the shared counts could not be exchanged (the counter store did not answer within 5000 ms); trying again every ${SYNC_MS} ms`]);
    expect(await statuses(app, 4)).toEqual([200, 200, 200, 429]);
  }, 15_000);

  test("an aborted signal stops the exchanges: no call to the store and no line after it", async () => {
    const store = recording();
    const { logger, said } = lines();
    const stopping = new AbortController();
    const app = sharedApp(HOURLY, { counters: store.counters, logger, signal: stopping.signal });
    await statuses(app, 1);
    await until(() => store.settled() === 1, "an exchange");
    stopping.abort();
    store.mode = "down";
    await statuses(app, 3);
    await Bun.sleep(20 * SYNC_MS);
    expect([store.exchanges.length, said]).toEqual([1, []]);
  });

  test("three apps on one store, sent to in turn at three times the limit, allow one app's limit (within one exchange interval per other app)", async () => {
    const store = createMemoryCounters();
    const limit: RateLimit = { requests: 100, seconds: 1, burst: 20 };
    const apps = [1, 2, 3].map(() => sharedApp(limit, { counters: store }));
    let served = 0;
    const started = performance.now();
    for (let i = 0; performance.now() - started < 2000; i++) {
      // 300 a second: one every 3.3 ms, three apps in turn.
      while (performance.now() - started < (i * 1000) / 300) await Bun.sleep(1);
      const [status] = await statuses(apps[i % 3]!, 1);
      if (status === 200) served++;
    }
    const seconds = (performance.now() - started) / 1000;
    const alone = limit.burst! + limit.requests * seconds;
    // Each other app may allow what it is sent within an interval before it hears, and the event loop may hold an exchange back a little.
    const slack = 2 * limit.requests * ((SYNC_MS + 50) / 1000);
    expect(served).toBeGreaterThanOrEqual(limit.requests * seconds * 0.9);
    expect(served).toBeLessThanOrEqual(alone + slack);
  });

  test("an exchange interval that is not a whole number of milliseconds from 10 to 60000 is refused when the app is made", () => {
    for (const syncMs of [0, -5, 9, 60_001, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createApp({ store: createMemoryStore(), apiKeys: [KEY], plugs: [rateLimit(HOURLY, { syncMs })] })).toThrow(
        `Cannot create app: rateLimit syncMs must be a whole number of milliseconds from 10 to 60000, got ${syncMs}`,
      );
    }
  });

  test("without a store the plug exchanges nothing and reports nothing", () => {
    const app = sharedApp(HOURLY, {});
    expect(app.reports().map((report) => report.plug)).toEqual([]);
  });
});
