/**
 * @module
 * Per-key rate limits: each API key may send `requests` per `seconds` on average and `burst` at
 * once; requests without a valid key are counted per client address, so a flood of bad keys is
 * limited too. Over the limit a request is answered 429 `rate_limited` with `Retry-After`; every
 * answer carries the `RateLimit-Policy` and `RateLimit` fields of the IETF draft
 * draft-ietf-httpapi-ratelimit-headers-11.
 *
 * The algorithm is GCRA (the generic cell rate algorithm, a token bucket kept as one number): each
 * counted party has a "theoretical arrival time", the moment its bucket would be full again. A
 * request moves it one interval (`seconds / requests`) later and is admitted while it stays within
 * `burst` intervals of now. One number per party, no timer, no sweeping on the way of a request.
 *
 * Memory is bounded: keys are counted by their names (`PlugSetup.keys`: the one lookup the app makes
 * per request), one number each, kept across a reload of the keys and forgotten once a name the app
 * no longer accepts has a full bucket again (`_key-table.ts`); addresses in one table of at most
 * `maxAddresses` entries (`_address-table.ts`).
 *
 * The counts stay in the app's memory unless `counters` is given: a store the app's instances share
 * (`counters.ts`: PostgreSQL's from `animal-store/postgres-store`, or one of yours), which makes one
 * budget of them (`_shared-counts.ts`).
 *
 * ```ts
 * import { createApp, createMemoryStore } from "animal-store";
 * import { rateLimit } from "animal-store/rate-limit";
 * const app = createApp({ store: createMemoryStore(), apiKeys: ["secret"], plugs: [rateLimit({ requests: 100, seconds: 1 })] });
 * ```
 *
 * One budget for every instance on one PostgreSQL database (`sql`, the client the store was given):
 *
 * ```ts
 * import { openPostgresRateCounters } from "animal-store/postgres-store";
 * const counters = await openPostgresRateCounters({ sql });
 * const plugs = [rateLimit({ requests: 100, seconds: 1 }, { counters })];
 * ```
 */
import type { ConnectionInfo, KeyRing, Plug, PlugOutcome, PlugSetup, PlugSteps, Validation } from "../../mod.ts";
import type { RateCounters } from "./counters.ts";
import type { SharedCounts } from "./_shared-counts.ts";
import { errorResponse } from "../../mod.ts";
import { createAddressTable } from "./_address-table.ts";
import { clientAddress, peerAddress } from "./_client-address.ts";
import { createKeyTable } from "./_key-table.ts";
import { shareCounts } from "./_shared-counts.ts";

export type { CounterBounds, CounterUse, RateCounters } from "./counters.ts";
export { createMemoryCounters } from "./counters.ts";
export type { CounterCheck } from "./counter-checks.ts";
export { rateCounterChecks } from "./counter-checks.ts";

/** A rate limit: `requests` per `seconds` on average, at most `burst` at once. */
export interface RateLimit {
  readonly requests: number;
  readonly seconds: number;
  /** How many requests may come at once after a quiet spell. Default `requests`. */
  readonly burst?: number;
  /** The most client addresses counted apart at once, for requests without a valid key. Default 10,000. */
  readonly maxAddresses?: number;
}

/** The default number of client addresses counted apart: about 1.5 MB of memory at most. */
export const DEFAULT_MAX_ADDRESSES = 10_000;

/** Where the counts are shared, and how often; absent: each app counts alone, in its memory. */
export interface RateLimitOptions {
  /** A store the app's instances share their counts through (`openPostgresRateCounters`, `createMemoryCounters`, yours). */
  readonly counters?: RateCounters;
  /** Milliseconds between an instance's exchanges with `counters` while requests come: longer, fewer statements and more overshoot. Default 1000. */
  readonly syncMs?: number;
  /** Where the lines go when the shared counts go out of reach and come back. Default `console`. */
  readonly logger?: Pick<Console, "warn">;
  /** Stops the exchanges once aborted (a server that is stopping). */
  readonly signal?: AbortSignal;
}

/** The exchange interval: its default, and the shortest and longest taken. */
export const SYNC_MS: { readonly default: number; readonly min: number; readonly max: number } = Object.freeze({ default: 1000, min: 10, max: 60_000 });

const UNITS: Readonly<Record<string, number>> = { s: 1, min: 60, h: 3600 };
const WRITTEN = /^([0-9]{1,9})\/(s|min|h)(?:,burst=([0-9]{1,9}))?$/;

/** Reads a limit written as `100/s`, `6000/min` or `100/s,burst=200` (`s`, `min` or `h`). */
export function parseRateLimit(text: string): Validation<RateLimit> {
  const parts = WRITTEN.exec(text.replaceAll(" ", ""));
  if (parts === null) {
    return { ok: false, issues: [`must be requests per s, min or h with an optional burst, such as "100/s" or "100/s,burst=200", got "${text}"`] };
  }
  const [, requests = "", unit = "", burst] = parts;
  // The form allows only digits, so a number is wrong only when it is 0; each says how to write it.
  if (Number(requests) === 0) return { ok: false, issues: [`must allow at least 1 request per ${unit}, such as "100/${unit}", got "${text}"`] };
  if (burst !== undefined && Number(burst) === 0) {
    const rate = `${requests}/${unit}`;
    return {
      ok: false,
      issues: [
        `must have a burst of at least 1, the requests a client may send at once: write "${rate}" for a burst of ${requests}, ` +
        `or a larger one such as "${rate},burst=${Number(requests) * 2}", got "${text}"`,
      ],
    };
  }
  return { ok: true, value: { requests: Number(requests), seconds: UNITS[unit]!, ...(burst === undefined ? {} : { burst: Number(burst) }) } };
}

/** What is wrong with a limit, naming the option and the value, or `undefined` when every number is right. */
export function rateLimitProblem(limit: RateLimit): string | undefined {
  for (const name of ["requests", "burst", "maxAddresses"] as const) {
    const value = limit[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) return `${name} must be a positive integer, got ${value}`;
  }
  return limit.seconds > 0 && Number.isFinite(limit.seconds) ? undefined : `seconds must be a positive number, got ${limit.seconds}`;
}

/** What is wrong with an exchange interval (written as `shown`), or `undefined`: a whole number of milliseconds from `SYNC_MS.min` to `SYNC_MS.max`. */
export function syncMsProblem(syncMs: number, shown: string = String(syncMs)): string | undefined {
  if (Number.isSafeInteger(syncMs) && syncMs >= SYNC_MS.min && syncMs <= SYNC_MS.max) return undefined;
  return `must be a whole number of milliseconds from ${SYNC_MS.min} to ${SYNC_MS.max}, got ${shown}`;
}

/** The limit in words, for messages: `100 requests per second, in bursts of up to 200`. */
export function describeRateLimit(limit: RateLimit): string {
  const { requests, seconds, burst = requests } = limit;
  const per = seconds === 1 ? "second" : seconds === 60 ? "minute" : seconds === 3600 ? "hour" : `${seconds} seconds`;
  return `${requests} request${requests === 1 ? "" : "s"} per ${per}${burst === requests ? "" : `, in bursts of up to ${burst}`}`;
}

// Lets float arithmetic land on whole requests: 3 × (1000 / 3) ms is 1000 ms.
const EPSILON = 1e-6;

/**
 * A rate limit for an app: its late step counts each request a plug before it has not answered
 * against its key (or, without a valid key, its client address, behind a trusted proxy the
 * forwarded one) and refuses it with 429 past the limit; every other answer carries the RateLimit
 * fields. With `options.counters`, the counts are shared with the other apps that use it, and the
 * plug reports whether they are (`rate_limit_shared`, `rate_limit_alone_seconds`).
 */
export function rateLimit(limit: RateLimit, options: RateLimitOptions = {}): Plug {
  const syncMs = options.syncMs ?? SYNC_MS.default;
  const syncProblem = syncMsProblem(syncMs);
  const problem = rateLimitProblem(limit) ?? (syncProblem === undefined ? undefined : `syncMs ${syncProblem}`);
  if (problem !== undefined) throw new RangeError(`Cannot create app: rateLimit ${problem}`);
  return ({ keys, forwardedFor }): PlugSteps => {
    const limiter = createRateLimiter(limit, keys, forwardedFor, { ...options, syncMs });
    return { name: "rateLimit", late: limiter.late, ...(limiter.shared === undefined ? {} : { report: limiter.shared.report }) };
  };
}

/** Counts one request against the limit of its key or address. */
type RateLimiter = (request: Request, path: string, connection: ConnectionInfo | undefined) => PlugOutcome;

function createRateLimiter(
  limit: RateLimit,
  keys: KeyRing,
  forwardedFor: PlugSetup["forwardedFor"],
  options: RateLimitOptions & { readonly syncMs: number },
): { late: RateLimiter; shared: SharedCounts | undefined } {
  const interval = (limit.seconds * 1000) / limit.requests;
  const burst = limit.burst ?? limit.requests;
  const capacity = burst * interval;
  const policy = `"default";q=${burst};w=${Math.max(1, Math.ceil(capacity / 1000 - EPSILON))}`;
  const named = createKeyTable(keys);
  const maxAddresses = limit.maxAddresses ?? DEFAULT_MAX_ADDRESSES;
  const addresses = createAddressTable(maxAddresses);
  const described = describeRateLimit(limit);
  const shared = options.counters === undefined ? undefined : shareCounts({
    counters: options.counters,
    syncMs: options.syncMs,
    logger: options.logger ?? console,
    signal: options.signal,
    costMs: interval,
    maxAddresses,
    raise: (key, entry, tat) => {
      if (key === undefined) addresses.raise(entry, tat);
      else named.raise(key, tat, performance.now());
    },
  });

  /** The RateLimit field once a request left `used` ms of the bucket taken: whole requests left, seconds until one more. */
  function serviceLimit(used: number): string {
    const available = (capacity - used) / interval;
    const remaining = Math.max(0, Math.floor(available + EPSILON));
    const untilNext = Math.ceil(((remaining + 1 - available) * interval) / 1000 - EPSILON);
    return `"default";r=${remaining};t=${Math.max(1, untilNext)}`;
  }

  function refusal(request: Request, path: string, byKey: boolean, waitMs: number): Response {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000 - EPSILON));
    const who = byKey ? "this API key has" : "requests without a valid API key from this address have";
    return errorResponse("rate_limited", `Cannot ${request.method} ${path}: ${who} used up the rate limit of ${described}; retry in ${seconds} s`, {
      "retry-after": String(seconds),
      "ratelimit-policy": policy,
      ratelimit: `"default";r=0;t=${seconds}`,
    });
  }

  const late: RateLimiter = (request, path, connection) => {
    const now = performance.now();
    const check = keys.keyOf(request);
    // A valid key is counted by its name, the one stable, non-secret id of a key; anything else by its address.
    const key = check.outcome === "valid" ? check.key.name : undefined;
    const address = key === undefined ? addresses.countedAs(clientAddress(forwardedFor(request.headers), peerAddress(request, connection)), now) : "";
    const tat = Math.max(key === undefined ? addresses.tatOf(address) : named.tatOf(key), now) + interval;
    if (tat - now > capacity + EPSILON) {
      shared?.refused(key, address);
      return { answer: refusal(request, path, key !== undefined, tat - now - capacity) };
    }
    if (key === undefined) addresses.set(address, tat);
    else named.set(key, tat, now);
    shared?.admitted(key, address, now);
    return { headers: { "ratelimit-policy": policy, ratelimit: serviceLimit(tat - now) } };
  };
  return { late, shared };
}
