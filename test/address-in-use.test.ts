import { expect, test } from "bun:test";
import type { Runtime } from "./server-process.ts";
import { startServer } from "./server-process.ts";

const RUNTIMES: readonly Runtime[] = ["bun", "deno", "deno-serve", "node"];

test.each(RUNTIMES)("a second %s server on a port in use exits 1 with one line naming the address, and the first keeps it", async (runtime) => {
  const first = await startServer(runtime, { STORE: "memory", API_KEYS: "k" });
  try {
    const { port } = new URL(first.url);
    const second = startServer(runtime, { STORE: "memory", API_KEYS: "k", PORT: port });
    // startServer's error carries the exit code and everything the process printed.
    const failure = await second.then(async (listening) => (await listening.stop("SIGKILL"), "listened"), (error: Error) => error.message);
    expect(failure).toBe(
      `${runtime} server did not start (exit code 1):\n` +
        `animal-store: Cannot listen on 127.0.0.1:${port}: the address is already in use; stop the server holding it or choose another PORT\n`,
    );
    expect((await fetch(`${first.url}/pets`, { headers: { authorization: "Bearer k" } })).status).toBe(200);
  } finally {
    await first.stop("SIGKILL");
  }
}, 30_000);

test("a METRICS_PORT in use exits 1 with one line naming METRICS_PORT", async () => {
  const first = await startServer("bun", { STORE: "memory", API_KEYS: "k", METRICS_PORT: "0" });
  try {
    const metricsPort = /metrics on http:\/\/127\.0\.0\.1:(\d+)\//.exec(first.output())?.[1] ?? "none printed";
    const second = startServer("bun", { STORE: "memory", API_KEYS: "k", METRICS_PORT: metricsPort });
    const failure = await second.then(async (listening) => (await listening.stop("SIGKILL"), "listened"), (error: Error) => error.message);
    expect(failure).toBe(
      "bun server did not start (exit code 1):\n" +
        `animal-store: Cannot listen on 127.0.0.1:${metricsPort}: the address is already in use; stop the server holding it or choose another METRICS_PORT\n`,
    );
  } finally {
    await first.stop("SIGKILL");
  }
}, 30_000);
