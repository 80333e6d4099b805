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
 * per request), one number each, and a name the app no longer accepts is forgotten once its bucket
 * is full again; addresses in one table of at most `maxAddresses` entries. When the table is full,
 * entries whose bucket is full again are dropped (forgetting them changes nothing), at most once a
 * second; if none is, new addresses share one overflow entry until room is made.
 *
 * ```ts
 * import { createApp, createMemoryStore } from "animal-store";
 * import { rateLimit } from "animal-store/rate-limit";
 * const app = createApp({ store: createMemoryStore(), apiKeys: ["secret"], plugs: [rateLimit({ requests: 100, seconds: 1 })] });
 * ```
 */
import type { ConnectionInfo, KeyRing, Plug, PlugOutcome, PlugSetup, Validation } from "../../mod.ts";
import { errorResponse } from "../../mod.ts";
import { clientAddress, peerAddress } from "./_client-address.ts";

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
 * fields.
 */
export function rateLimit(limit: RateLimit): Plug {
  const problem = rateLimitProblem(limit);
  if (problem !== undefined) throw new RangeError(`Cannot create app: rateLimit ${problem}`);
  return ({ keys, forwardedFor }) => ({ name: "rateLimit", late: createRateLimiter(limit, keys, forwardedFor) });
}

/** Counts one request against the limit of its key or address. */
type RateLimiter = (request: Request, path: string, connection: ConnectionInfo | undefined) => PlugOutcome;

function createRateLimiter(limit: RateLimit, keys: KeyRing, forwardedFor: PlugSetup["forwardedFor"]): RateLimiter {
  const interval = (limit.seconds * 1000) / limit.requests;
  const burst = limit.burst ?? limit.requests;
  const capacity = burst * interval;
  const policy = `"default";q=${burst};w=${Math.max(1, Math.ceil(capacity / 1000 - EPSILON))}`;
  const named = createKeyTable(keys);
  const addresses = createAddressTable(limit.maxAddresses ?? DEFAULT_MAX_ADDRESSES);
  const described = describeRateLimit(limit);

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

  return (request, path, connection) => {
    const now = performance.now();
    const check = keys.keyOf(request);
    // A valid key is counted by its name, the one stable, non-secret id of a key; anything else by its address.
    const key = check.outcome === "valid" ? check.key.name : undefined;
    const address = key === undefined ? addresses.countedAs(clientAddress(forwardedFor(request.headers), peerAddress(request, connection)), now) : "";
    const tat = Math.max(key === undefined ? addresses.tatOf(address) : named.tatOf(key), now) + interval;
    if (tat - now > capacity + EPSILON) return { answer: refusal(request, path, key !== undefined, tat - now - capacity) };
    if (key === undefined) addresses.set(address, tat);
    else named.set(key, tat, now);
    return { headers: { "ratelimit-policy": policy, ratelimit: serviceLimit(tat - now) } };
  };
}

/** The theoretical arrival time of each key by name (ms, on performance.now()'s clock); absent is a full bucket. */
interface KeyTable {
  tatOf(name: string): number;
  set(name: string, tat: number, now: number): void;
}

/** One number per key: past the ring's size (names the app no longer accepts), full buckets are dropped, at most once a second. */
function createKeyTable(keys: KeyRing): KeyTable {
  const tats = new Map<string, number>();
  let nextSweep = 0;
  return {
    tatOf: (name) => tats.get(name) ?? 0,
    set(name, tat, now) {
      tats.set(name, tat);
      if (tats.size <= keys.size || now < nextSweep) return;
      nextSweep = now + SWEEP_INTERVAL_MS;
      for (const [entry, entryTat] of tats) if (entryTat <= now) tats.delete(entry);
    },
  };
}

/** The theoretical arrival times of client addresses, at most `max` of them plus the shared overflow. */
interface AddressTable {
  /** The entry an address is counted under: its own, or the shared overflow while the table is full. */
  countedAs(address: string, now: number): string;
  tatOf(entry: string): number;
  set(entry: string, tat: number): void;
}

/** The entry new addresses share while the table is full; no address is empty. */
const OVERFLOW = "";
const SWEEP_INTERVAL_MS = 1000;

function createAddressTable(max: number): AddressTable {
  const tats = new Map<string, number>();
  let nextSweep = 0;
  return {
    countedAs(address, now) {
      if (tats.has(address) || tats.size - (tats.has(OVERFLOW) ? 1 : 0) < max) return address;
      if (now >= nextSweep) {
        nextSweep = now + SWEEP_INTERVAL_MS;
        // A bucket full again is the same as no entry: dropping it forgets nothing.
        for (const [entry, tat] of tats) if (tat <= now && entry !== OVERFLOW) tats.delete(entry);
      }
      return tats.size - (tats.has(OVERFLOW) ? 1 : 0) < max ? address : OVERFLOW;
    },
    tatOf: (entry) => tats.get(entry) ?? 0,
    set: (entry, tat) => void tats.set(entry, tat),
  };
}
