/**
 * A collector in trouble never holds a request: with it answering 503 slowly, killed mid-export or gone, every request
 * is answered at once, spans that do not fit the bounded queue are dropped and counted, and the
 * graceful stop still exits 0 within its grace, saying how many spans were lost.
 */
import { describe, expect, test } from "bun:test";
import type { NodeLineRuntime, Runtime, ServerProcess } from "./server-process.ts";
import { OTHER_NODE_LINES } from "./server-process.ts";
import { startOtlpReceiver } from "./fixtures/otlp-receiver.ts";
import { startServer } from "./server-process.ts";

const KEY = "collector-key";
/** More spans than the queue holds (2048): each request makes a server span and a store span. */
const REQUESTS = 1600;
const AT_ONCE = 40;

/** Sends `REQUESTS` lists, `AT_ONCE` at a time, each allowed 5 s; resolves with the statuses seen. */
async function traffic(server: ServerProcess): Promise<Set<number>> {
  const statuses = new Set<number>();
  for (let sent = 0; sent < REQUESTS; sent += AT_ONCE) {
    const wave = Array.from({ length: AT_ONCE }, () =>
      fetch(`${server.url}/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` }, signal: AbortSignal.timeout(5000) }).then(
        async (response) => (await response.arrayBuffer(), response.status),
        () => 0,
      ));
    for (const status of await Promise.all(wave)) statuses.add(status);
  }
  return statuses;
}

function lostSpans(metrics: string, reason: string): number {
  const line = metrics.split("\n").find((candidate) => candidate.startsWith(`animal_store_trace_spans_lost_total{reason="${reason}"} `));
  return Number(line?.split(" ")[1] ?? Number.NaN);
}

for (const runtime of ["bun", "node", ...OTHER_NODE_LINES] as const satisfies readonly (Runtime | NodeLineRuntime)[]) {
  describe(`a collector in trouble, on ${runtime}`, () => {
    test("answering 503 slowly, then killed mid-export: every request is answered, the overflow dropped and counted, and the stop exits 0 in its grace", async () => {
      const receiver = startOtlpReceiver();
      receiver.failing(20_000);
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, LOG: "off", METRICS_PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      try {
        expect([...(await traffic(server))]).toEqual([200]);
        const metricsUrl = /metrics on (http:\/\/\S+)/.exec(server.output())![1]!;
        expect(lostSpans(await (await fetch(metricsUrl)).text(), "queue_full")).toBeGreaterThan(0);
        // Its connections cut while an export waits on it; past the grace the stop would exit 1.
        await receiver.stop();
        expect(await server.stop("SIGTERM")).toBe(0);
        expect(server.output()).toMatch(/[0-9]+ spans were not exported \([0-9]+ dropped with the queue full/);
      } finally {
        await server.stop("SIGKILL").catch(() => undefined);
        await receiver.stop();
      }
    }, 90_000);

    test("gone (nothing listening): every request is answered and the stop exits 0", async () => {
      const receiver = startOtlpReceiver();
      const url = receiver.url;
      await receiver.stop();
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, LOG: "off", OTEL_EXPORTER_OTLP_ENDPOINT: url });
      try {
        expect([...(await traffic(server))]).toEqual([200]);
        expect(await server.stop("SIGTERM")).toBe(0);
      } finally {
        await server.stop("SIGKILL").catch(() => undefined);
      }
    }, 90_000);
  });
}

describe("the exporter's own warnings", () => {
  test.each(["bun", "deno", "node"] as const)("on %s, a collector asking for a retry at once (Retry-After: 0) leaves stdout and stderr JSON Lines with LOG_FORMAT=json", async (runtime) => {
    const receiver = startOtlpReceiver();
    receiver.failing(0, "0");
    const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, LOG_FORMAT: "json", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    try {
      expect([...(await traffic(server))]).toEqual([200]);
      // An export and its retries, each at once as asked.
      for (const started = Date.now(); receiver.headers.length < 3 && Date.now() - started < 15_000;) await Bun.sleep(25);
      expect(receiver.headers.length).toBeGreaterThanOrEqual(3);
      expect(await server.stop("SIGTERM")).toBe(0);
      const lines = server.output().split("\n").filter((line) => line !== "");
      const notJson = lines.filter((line) => {
        try {
          return typeof JSON.parse(line) !== "object";
        } catch {
          return true;
        }
      });
      expect(notJson).toEqual([]);
      // The SDK's exporter set each retry's timer to -1 ms, which Bun and Deno warned of; the server's own waits 0 ms.
      expect(lines.filter((line) => line.includes("TimeoutNegativeWarning"))).toEqual([]);
    } finally {
      await server.stop("SIGKILL").catch(() => undefined);
      await receiver.stop();
    }
  }, 90_000);
});
