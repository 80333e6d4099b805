import { describe, expect, test } from "bun:test";
import type { App, ConnectionInfo, TrustedProxyHeader } from "../src/mod.ts";
import type { RateLimit } from "../src/plugs/rate-limit/mod.ts";
import { readConfig } from "../adapters/server/config.ts";
import { createApp, createKeyRing, createMemoryStore } from "../src/mod.ts";
import { parseRateLimit, rateLimit } from "../src/plugs/rate-limit/mod.ts";
import { AUTH, errorOf, KEY } from "./helpers.ts";

const OTHER_KEY = "second-key";
/** One request an hour after a burst of three: no request in a test is ever refilled. */
const HOURLY: RateLimit = { requests: 1, seconds: 3600, burst: 3 };

function limitedApp(limit: RateLimit, options: { trustProxy?: TrustedProxyHeader } = {}): App {
  return createApp({ store: createMemoryStore(), apiKeys: [KEY, OTHER_KEY], plugs: [rateLimit(limit)], ...options });
}

/** The connection info Deno.serve passes, from the given address. */
function from(hostname: string): ConnectionInfo {
  return { remoteAddr: { hostname } };
}

function send(app: App, path: string, headers: Record<string, string> = AUTH, connection: ConnectionInfo = from("192.0.2.1"), method = "GET"): Promise<Response> {
  return app.fetch(new Request(`http://pets.test${path}`, { method, headers }), connection);
}

async function statuses(app: App, count: number, headers: Record<string, string>, connection?: ConnectionInfo): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await send(app, "/v1/pets", headers, connection)).status);
  return seen;
}

describe("rate limits", () => {
  test("without a limit no answer carries RateLimit fields", async () => {
    const app = createApp({ store: createMemoryStore(), apiKeys: [KEY] });
    const response = await send(app, "/v1/pets");
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit")).toBeNull();
    expect(response.headers.get("ratelimit-policy")).toBeNull();
  });

  test("a key may send its burst; the next request answers 429 rate_limited naming the limit and when to retry", async () => {
    const app = limitedApp(HOURLY);
    expect(await statuses(app, 3, AUTH)).toEqual([200, 200, 200]);
    const refused = await send(app, "/v1/pets");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("3600");
    expect(await errorOf(refused)).toEqual({
      code: "rate_limited",
      message: "Cannot GET /v1/pets: this API key has used up the rate limit of 1 request per hour, in bursts of up to 3; retry in 3600 s",
      status: 429,
    });
  });

  test("every answer carries RateLimit-Policy and RateLimit: quota and window, requests left and seconds until one more", async () => {
    const app = limitedApp(HOURLY);
    const answers = [await send(app, "/v1/pets"), await send(app, "/v1/pets/1"), await send(app, "/v1/nowhere"), await send(app, "/v1/pets")];
    expect(answers.map((response) => response.status)).toEqual([200, 404, 404, 429]);
    expect(answers.map((response) => response.headers.get("ratelimit-policy"))).toEqual(Array(4).fill('"default";q=3;w=10800'));
    expect(answers.map((response) => response.headers.get("ratelimit"))).toEqual([
      '"default";r=2;t=3600',
      '"default";r=1;t=3600',
      '"default";r=0;t=3600',
      '"default";r=0;t=3600',
    ]);
  });

  test("100/s with a burst of 200 is announced as 200 requests per 2 seconds", async () => {
    const response = await send(limitedApp({ requests: 100, seconds: 1, burst: 200 }), "/v1/pets");
    expect(response.headers.get("ratelimit-policy")).toBe('"default";q=200;w=2');
    expect(response.headers.get("ratelimit")).toBe('"default";r=199;t=1');
  });

  test("each key is counted apart: a second key keeps getting 200 once the first is refused", async () => {
    const app = limitedApp(HOURLY);
    expect(await statuses(app, 4, AUTH)).toEqual([200, 200, 200, 429]);
    expect(await statuses(app, 3, { authorization: `Bearer ${OTHER_KEY}` })).toEqual([200, 200, 200]);
  });

  test("each key is counted by its name, and a key's 429 names no other key; a key that goes at a replace is forgotten once full again (issue 50)", async () => {
    const keys = createKeyRing([{ name: "shop", key: KEY }, { name: "reports", key: OTHER_KEY, scope: "read" }]);
    const app = createApp({ store: createMemoryStore(), apiKeys: keys, plugs: [rateLimit(HOURLY)] });
    expect(await statuses(app, 4, AUTH)).toEqual([200, 200, 200, 429]);
    const refused = await send(app, "/v1/pets");
    const said = JSON.stringify([...refused.headers]) + JSON.stringify(await errorOf(refused));
    for (const other of ["reports", OTHER_KEY, "shop", KEY]) expect(said).not.toContain(other);
    expect(await statuses(app, 1, { authorization: `Bearer ${OTHER_KEY}` })).toEqual([200]);
    // The same key under a new name is a new count: the name is what is counted.
    keys.replace([{ name: "shop-2", key: KEY }]);
    expect(await statuses(app, 1, AUTH)).toEqual([200]);
  });

  test("a reload of the keys neither resets nor mixes two keys' budgets, whatever order the new keys come in (issue 50)", async () => {
    const keys = createKeyRing([{ name: "shop", key: KEY }, { name: "reports", key: OTHER_KEY }]);
    const app = createApp({ store: createMemoryStore(), apiKeys: keys, plugs: [rateLimit(HOURLY)] });
    const reports = { authorization: `Bearer ${OTHER_KEY}` };
    expect(await statuses(app, 2, AUTH)).toEqual([200, 200]);
    expect(await statuses(app, 4, reports)).toEqual([200, 200, 200, 429]);
    keys.replace([{ name: "new", key: "third-key" }, { name: "reports", key: OTHER_KEY }, { name: "shop", key: KEY }]);
    expect(await statuses(app, 2, AUTH)).toEqual([200, 429]);
    expect(await statuses(app, 1, reports)).toEqual([429]);
    expect(await statuses(app, 3, { authorization: "Bearer third-key" })).toEqual([200, 200, 200]);
  });

  test("a key counts the same however the Bearer scheme is written", async () => {
    const app = limitedApp(HOURLY);
    const spellings = [`Bearer ${KEY}`, `bearer ${KEY}`, `BEARER   ${KEY}  `, `Bearer ${KEY}`];
    const seen = [];
    for (const authorization of spellings) seen.push((await send(app, "/v1/pets", { authorization })).status);
    expect(seen).toEqual([200, 200, 200, 429]);
  });

  test("requests without a valid key are counted per client address: a flood of bad keys is refused, other addresses and valid keys are not", async () => {
    const app = limitedApp(HOURLY);
    const badKeys = [1, 2, 3, 4].map((i) => ({ authorization: `Bearer wrong-${i}` }));
    const seen = [];
    for (const headers of badKeys) seen.push((await send(app, "/v1/pets", headers, from("192.0.2.1"))).status);
    expect(seen).toEqual([401, 401, 401, 429]);
    expect((await send(app, "/v1/pets", {}, from("192.0.2.1"))).status).toBe(429);
    expect((await send(app, "/v1/openapi.json", {}, from("192.0.2.1"))).status).toBe(429);
    expect((await send(app, "/v1/pets", {}, from("192.0.2.2"))).status).toBe(401);
    expect((await send(app, "/v1/pets", AUTH, from("192.0.2.1"))).status).toBe(200);
  });

  test("a 429 to a request without a valid key says the address is over the limit", async () => {
    const app = limitedApp({ requests: 1, seconds: 60, burst: 1 });
    await send(app, "/v1/pets", {});
    expect((await errorOf(await send(app, "/v1/pets", {}))).message).toBe(
      "Cannot GET /v1/pets: requests without a valid API key from this address have used up the rate limit of 1 request per minute; retry in 60 s",
    );
  });

  test("IPv6 addresses of one /64 share a count, as do an IPv4 address and its IPv4-mapped form", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 2 });
    expect(await statuses(app, 1, {}, from("2001:db8:1:2::1"))).toEqual([401]);
    expect(await statuses(app, 1, {}, from("2001:0db8:0001:0002:ffff::9"))).toEqual([401]);
    expect(await statuses(app, 1, {}, from("2001:db8:1:2:3:4:5:6"))).toEqual([429]);
    expect(await statuses(app, 1, {}, from("2001:db8:1:3::1"))).toEqual([401]);
    expect(await statuses(app, 2, {}, from("192.0.2.7"))).toEqual([401, 401]);
    expect(await statuses(app, 1, {}, from("::ffff:192.0.2.7"))).toEqual([429]);
  });

  test("Bun's server is read as well as Deno's handler info: requestIP(request) gives the address", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 1 });
    const bun = (address: string): ConnectionInfo => ({ requestIP: () => ({ address }) });
    expect(await statuses(app, 2, {}, bun("198.51.100.1"))).toEqual([401, 429]);
    expect(await statuses(app, 1, {}, bun("198.51.100.2"))).toEqual([401]);
  });

  test("without TRUST_PROXY forwarded addresses are ignored: the connection's address is counted", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 1 });
    expect((await send(app, "/v1/pets", { "x-forwarded-for": "203.0.113.1" })).status).toBe(401);
    expect((await send(app, "/v1/pets", { "x-forwarded-for": "203.0.113.2" })).status).toBe(429);
  });

  test("with trustProxy x-forwarded, X-Forwarded-For's first element is counted and a client's own Forwarded is never read", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 1 }, { trustProxy: "x-forwarded" });
    const viaProxy = (headers: Record<string, string>) => send(app, "/v1/pets", headers, from("10.0.0.1")).then((response) => response.status);
    expect(await viaProxy({ "x-forwarded-for": "203.0.113.1, 10.0.0.1" })).toBe(401);
    expect(await viaProxy({ "x-forwarded-for": "203.0.113.2" })).toBe(401);
    expect(await viaProxy({ "x-forwarded-for": "203.0.113.1:4711", forwarded: "for=198.51.100.7" })).toBe(429);
    expect(await viaProxy({ "x-forwarded-for": "203.0.113.2", forwarded: "for=198.51.100.8" })).toBe(429);
  });

  test("with trustProxy forwarded, Forwarded's first for= is counted and a client's own X-Forwarded-For is never read", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 1 }, { trustProxy: "forwarded" });
    const viaProxy = (headers: Record<string, string>) => send(app, "/v1/pets", headers, from("10.0.0.1")).then((response) => response.status);
    expect(await viaProxy({ forwarded: 'for="203.0.113.1:4711";proto=https, for=10.0.0.1' })).toBe(401);
    expect(await viaProxy({ forwarded: "for=203.0.113.1", "x-forwarded-for": "198.51.100.7" })).toBe(429);
    expect(await viaProxy({ forwarded: 'for="[2001:db8::1]:4711"' })).toBe(401);
    expect(await viaProxy({ forwarded: "for=2001:db8:0:0:9::1" })).toBe(429);
    // No Forwarded: the proxy's own address, whatever X-Forwarded-For says.
    expect(await viaProxy({ "x-forwarded-for": "198.51.100.9" })).toBe(401);
    expect(await viaProxy({ "x-forwarded-for": "198.51.100.10" })).toBe(429);
  });

  test("with trustProxy forwarded, an element naming a parameter twice is malformed: no client picks its address by a second for=", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 2 }, { trustProxy: "forwarded" });
    const viaProxy = (forwarded: string) => send(app, "/v1/pets", { forwarded }, from("10.0.0.1")).then((response) => response.status);
    // Sent directly, and as nginx writes "for=$remote_addr;host=$host;proto=$scheme" for a Host of "a.example;for=…".
    const tricks = [1, 2, 3].flatMap((n) => [`for=203.0.113.7;for=198.18.5.${n}`, `for=192.0.2.50;host=a.example;for=198.18.7.${n};proto=http`]);
    expect(await Promise.all(tricks.map(viaProxy))).toEqual([401, 401, 429, 429, 429, 429]);
    // Every such request is one unknown client: neither address named in it is charged.
    expect([await viaProxy("for=203.0.113.7"), await viaProxy("for=192.0.2.50"), await viaProxy("for=198.18.5.1")]).toEqual([401, 401, 401]);
  });

  test("with trustProxy forwarded, a ; or , inside a quoted value neither ends the pair nor the element", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 1 }, { trustProxy: "forwarded" });
    const viaProxy = (forwarded: string) => send(app, "/v1/pets", { forwarded }, from("10.0.0.1")).then((response) => response.status);
    expect(await viaProxy('for=203.0.113.9;host="a.example;for=198.18.6.1,for=198.18.6.2"')).toBe(401);
    expect(await viaProxy('for=203.0.113.9;host="b.example"')).toBe(429);
  });

  test("behind a trusted proxy every spelling of one address counts as it, and what is not an address as one unknown client", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 1 }, { trustProxy: "x-forwarded" });
    const viaProxy = (forwarded: string) => send(app, "/v1/pets", { "x-forwarded-for": forwarded }, from("10.0.0.1")).then((response) => response.status);
    expect(await viaProxy("192.0.2.1")).toBe(401);
    for (const spelling of ["::ffff:c000:201", "0:0:0:0:0:ffff:192.0.2.1", "[::FFFF:192.0.2.1]:4711"]) expect(await viaProxy(spelling)).toBe(429);
    expect(await viaProxy("2001:db8:1:2::1")).toBe(401);
    for (const spelling of ["2001:db8:1:2::1.2.3.4", "2001:db8:1:2:0:0:9.9.9.9", "2001:DB8:1:2:0:0:0:ffff"]) expect(await viaProxy(spelling)).toBe(429);
    expect(await viaProxy("192.000.002.001")).toBe(401);
    for (const unknown of ["3221225985", "192.0.2.1.", "2001:db8:1:2::1%eth0", "2001:db8:1:2::1%25eth0", "2001:db8:1:2::1.", `1-${"x".repeat(8192)}`]) {
      expect(await viaProxy(unknown)).toBe(429);
    }
  });

  test("memory is bounded: past maxAddresses, new addresses share one count until old ones are full again", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 1, maxAddresses: 2 });
    expect(await statuses(app, 1, {}, from("192.0.2.1"))).toEqual([401]);
    expect(await statuses(app, 1, {}, from("192.0.2.2"))).toEqual([401]);
    // The table is full of buckets not yet refilled: the third and fourth address share the overflow.
    expect(await statuses(app, 1, {}, from("192.0.2.3"))).toEqual([401]);
    expect(await statuses(app, 1, {}, from("192.0.2.4"))).toEqual([429]);
    expect(await statuses(app, 1, {}, from("192.0.2.1"))).toEqual([429]);
  });

  test("without a counter store, limits are per app: a key refused by one app on a shared pet store is still served by another", async () => {
    const store = createMemoryStore();
    const [first, second] = [1, 2].map(() => createApp({ store, apiKeys: [KEY], plugs: [rateLimit(HOURLY)] }));
    expect(await statuses(first!, 4, AUTH)).toEqual([200, 200, 200, 429]);
    expect(await statuses(second!, 4, AUTH)).toEqual([200, 200, 200, 429]);
  });

  test("a refused request uses up nothing: after Retry-After the key is served again", async () => {
    const app = limitedApp({ requests: 1, seconds: 1, burst: 1 });
    expect(await statuses(app, 3, AUTH)).toEqual([200, 429, 429]);
    await Bun.sleep(1050);
    expect(await statuses(app, 1, AUTH)).toEqual([200]);
  });

  test("HEAD over the limit answers 429 with the fields and no body", async () => {
    const app = limitedApp({ requests: 1, seconds: 3600, burst: 1 });
    await send(app, "/v1/pets", AUTH, undefined, "HEAD");
    const refused = await send(app, "/v1/pets", AUTH, undefined, "HEAD");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("3600");
    expect(refused.headers.get("ratelimit")).toBe('"default";r=0;t=3600');
    expect(await refused.text()).toBe("");
  });

  test("an app with a limit whose numbers are not positive integers is refused when built", () => {
    expect(() => limitedApp({ requests: 0, seconds: 1 })).toThrow("Cannot create app: rateLimit requests must be a positive integer, got 0");
    expect(() => limitedApp({ requests: 5, seconds: 1, burst: 1.5 })).toThrow("Cannot create app: rateLimit burst must be a positive integer, got 1.5");
    expect(() => limitedApp({ requests: 5, seconds: 1, maxAddresses: 0 })).toThrow("Cannot create app: rateLimit maxAddresses must be a positive integer, got 0");
    expect(() => limitedApp({ requests: 5, seconds: 0 })).toThrow("Cannot create app: rateLimit seconds must be a positive number, got 0");
  });
});

describe("RATE_LIMIT", () => {
  test("reads requests per s, min or h, with an optional burst", () => {
    expect(parseRateLimit("100/s")).toEqual({ ok: true, value: { requests: 100, seconds: 1 } });
    expect(parseRateLimit("6000/min")).toEqual({ ok: true, value: { requests: 6000, seconds: 60 } });
    expect(parseRateLimit("100/s,burst=200")).toEqual({ ok: true, value: { requests: 100, seconds: 1, burst: 200 } });
    expect(parseRateLimit("10/h, burst=2")).toEqual({ ok: true, value: { requests: 10, seconds: 3600, burst: 2 } });
  });

  test("anything else is refused with the form it must take", () => {
    for (const text of ["100", "100/d", "0/s", "1.5/s", "-1/s", "100/s,burst=0", "100/s,burst=", "100/s;burst=2", "lots"]) {
      const result = parseRateLimit(text);
      expect(result.ok).toBe(false);
    }
    expect(parseRateLimit("100/d")).toEqual({
      ok: false,
      issues: ['must be requests per s, min or h with an optional burst, such as "100/s" or "100/s,burst=200", got "100/d"'],
    });
  });

  test("a limit of 0 requests or a burst of 0 is refused in one line naming RATE_LIMIT and how to write it, never an option the setting has not", () => {
    const issues = (environment: Record<string, string>) => {
      const result = readConfig(environment, []);
      return result.ok ? [] : result.issues;
    };
    expect(issues({ RATE_LIMIT: "100/s,burst=0" })).toEqual([
      'RATE_LIMIT must have a burst of at least 1, the requests a client may send at once: write "100/s" for a burst of 100, or a larger one such as "100/s,burst=200", got "100/s,burst=0"',
    ]);
    expect(issues({ RATE_LIMIT: "0/min" })).toEqual(['RATE_LIMIT must allow at least 1 request per min, such as "100/min", got "0/min"']);
    for (const text of ["100/s,burst=0", "0/s", "0/h,burst=0"]) {
      const [issue = "", ...more] = issues({ RATE_LIMIT: text });
      expect({ text, more, issue }).toEqual({ text, more: [], issue: expect.stringMatching(/^RATE_LIMIT must [^\n]*, got "/) });
      expect(issue).not.toMatch(/maxAddresses|requests, burst/);
    }
  });

  test("the standalone server takes it from RATE_LIMIT or --rate-limit, and METRICS_PORT or --metrics-port", () => {
    const fromEnv = readConfig({ RATE_LIMIT: "100/s,burst=200", METRICS_PORT: "9464" }, []);
    expect(fromEnv.ok && [fromEnv.value.rateLimit, fromEnv.value.metricsPort]).toEqual([{ requests: 100, seconds: 1, burst: 200 }, 9464]);
    const fromFlags = readConfig({ RATE_LIMIT: "1/s" }, ["--rate-limit", "5/min", "--metrics-port=0"]);
    expect(fromFlags.ok && [fromFlags.value.rateLimit, fromFlags.value.metricsPort]).toEqual([{ requests: 5, seconds: 60 }, 0]);
    const unset = readConfig({}, []);
    expect(unset.ok && [unset.value.rateLimit, unset.value.metricsPort]).toEqual([undefined, undefined]);
  });

  test("RATE_LIMIT_SYNC_MS (or --rate-limit-sync-ms) takes whole milliseconds from 10 to 60000, 1000 unless set", () => {
    const sync = (env: Record<string, string>, args: string[] = []) => {
      const result = readConfig(env, args);
      return result.ok ? result.value.rateLimitSyncMs : result.issues;
    };
    expect([sync({}), sync({ RATE_LIMIT_SYNC_MS: "10" }), sync({ RATE_LIMIT_SYNC_MS: "60000" }), sync({ RATE_LIMIT_SYNC_MS: "5" }, ["--rate-limit-sync-ms=250"])]).toEqual([1000, 10, 60000, 250]);
    for (const text of ["0", "-5", "9", "60001", "9999999999", "1e3", "1.5", "0x10", " 100", "fast"]) {
      expect(sync({ RATE_LIMIT_SYNC_MS: text })).toEqual([`RATE_LIMIT_SYNC_MS must be a whole number of milliseconds from 10 to 60000, got "${text}"`]);
    }
  });

  test("a bad RATE_LIMIT or METRICS_PORT is refused naming the setting", () => {
    expect(readConfig({ RATE_LIMIT: "fast" }, [])).toEqual({
      ok: false,
      issues: ['RATE_LIMIT must be requests per s, min or h with an optional burst, such as "100/s" or "100/s,burst=200", got "fast"'],
    });
    expect(readConfig({ METRICS_PORT: "70000" }, [])).toEqual({ ok: false, issues: ['METRICS_PORT must be an integer from 0 to 65535, got "70000"'] });
    expect(readConfig({ PORT: "9000", METRICS_PORT: "9000" }, [])).toEqual({
      ok: false,
      issues: ["METRICS_PORT must differ from PORT (metrics are served on a listener of their own), got 9000 for both"],
    });
  });
});
