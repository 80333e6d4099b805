/**
 * @module
 * Private to the standalone server: posting an encoded batch of spans to the collector over OTLP/HTTP,
 * as the SDK's exporter does: gzipped when told, with the configured headers, every attempt and retry
 * within the export's timeout; a 429, 502, 503 or 504, or no connection at all, is tried again (at
 * most five times more, after `Retry-After` or a growing, jittered pause), anything else is final.
 */
import http from "node:http";
import https from "node:https";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { OtlpCompression } from "./trace-settings.ts";

/** Where and how batches are posted. */
export interface SendOptions {
  readonly url: string;
  readonly contentType: "application/x-protobuf" | "application/json";
  readonly headers: Readonly<Record<string, string>>;
  readonly compression: OtlpCompression;
  readonly timeoutMs: number;
}

const RETRYABLE = [429, 502, 503, 504];
const MAX_RETRIES = 5;
const FIRST_PAUSE_MS = 1000;
const LONGEST_PAUSE_MS = 5000;
const PAUSE_GROWTH = 1.5;
const JITTER = 0.2;
const zipped = promisify(gzip);

// Each runtime's cheaper client, measured side by side (bench/RESULTS.md, "Traces, second round").
const attempt = "Bun" in globalThis || "Deno" in globalThis ? fetchAttempt : httpAttempt;

/** Posts `body`; resolves true when the collector took it, false when it refused or the timeout passed. Never rejects. */
export async function sendSpans(body: Uint8Array<ArrayBuffer> | string, options: SendOptions): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const payload = options.compression === "gzip" ? new Uint8Array(await zipped(bytes)) : bytes;
  const headers = { ...options.headers, "content-type": options.contentType, ...(options.compression === "gzip" ? { "content-encoding": "gzip" } : {}) };
  let pause = FIRST_PAUSE_MS;
  for (let retries = 0; ; retries++) {
    const outcome = await attempt(options.url, payload, headers, deadline - Date.now());
    if (outcome.done !== undefined) return outcome.done;
    const wait = outcome.retryAfterMs ?? Math.max(Math.min(pause * (1 + Math.random() * 2 * JITTER - JITTER), LONGEST_PAUSE_MS), 0);
    pause *= PAUSE_GROWTH;
    if (retries === MAX_RETRIES || wait > deadline - Date.now()) return false;
    await new Promise((resume) => setTimeout(resume, wait));
  }
}

/** What one post came to: done (taken or refused for good), or worth another try, perhaps after a given pause. */
type Outcome = { readonly done: boolean; readonly retryAfterMs?: undefined } | { readonly done?: undefined; readonly retryAfterMs: number | undefined };

/** One post with `fetch`, which on Bun and Deno costs the main thread the least. */
async function fetchAttempt(url: string, payload: Uint8Array<ArrayBuffer>, headers: Record<string, string>, timeoutMs: number): Promise<Outcome> {
  try {
    const response = await fetch(url, { method: "POST", body: payload, headers, signal: AbortSignal.timeout(Math.max(timeoutMs, 1)) });
    await response.arrayBuffer();
    if (response.ok) return { done: true };
    return RETRYABLE.includes(response.status) ? { retryAfterMs: retryAfterMs(response.headers.get("retry-after")) } : { done: false };
  } catch (error) {
    // The timeout spent is final; a connection refused or cut is worth another try.
    return error instanceof DOMException && error.name === "TimeoutError" ? { done: false } : { retryAfterMs: undefined };
  }
}

/** One post with `node:http(s)`, which on Node costs the main thread less than its `fetch` (bench/RESULTS.md). */
function httpAttempt(url: string, payload: Uint8Array<ArrayBuffer>, headers: Record<string, string>, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const post = (url.startsWith("https:") ? https : http).request(url, { method: "POST", headers: { ...headers, "content-length": String(payload.byteLength) } }, (response) => {
      const status = response.statusCode ?? 0;
      const retryAfter = response.headers["retry-after"];
      response.on("end", () => settle(status >= 200 && status < 300 ? { done: true } : RETRYABLE.includes(status) ? { retryAfterMs: retryAfterMs(retryAfter ?? null) } : { done: false }));
      response.on("error", () => settle({ retryAfterMs: undefined }));
      response.resume();
    });
    // The timeout spent is final; a connection refused or cut is worth another try.
    const timer = setTimeout(() => (settle({ done: false }), post.destroy()), Math.max(timeoutMs, 1));
    post.on("error", () => settle({ retryAfterMs: undefined }));
    post.end(payload);
    function settle(outcome: Outcome): void {
      clearTimeout(timer);
      resolve(outcome);
    }
  });
}

/** `Retry-After` in milliseconds: seconds, or a date; `undefined` when absent or unreadable. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^[0-9]+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(date - Date.now(), 0);
}
