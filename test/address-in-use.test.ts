import { expect, test } from "bun:test";
import type { Runtime } from "./server-process.ts";
import { listenProblem } from "../adapters/server/listen-checks.ts";
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

test.each(RUNTIMES)("on %s, PORT=80 for a user who may not take it exits 2 with one line naming PORT and the fix, no stack trace", async (runtime) => {
  const failure = await startServer(runtime, { STORE: "memory", API_KEYS: "k", PORT: "80" }, { withoutLowPorts: true }).then(async (listening) => (await listening.stop("SIGKILL"), "listened"), (error: Error) => error.message);
  expect(failure).toBe(
    `${runtime} server did not start (exit code 2):\n` +
      "animal-store: Cannot listen on 127.0.0.1:80: permission denied (EACCES); ports below 1024 need root or the CAP_NET_BIND_SERVICE capability: choose a PORT from 1024 up\n",
  );
}, 30_000);

test("METRICS_PORT=80 for a user who may not take it exits 2 with one line naming METRICS_PORT", async () => {
  const failure = await startServer("node", { STORE: "memory", API_KEYS: "k", METRICS_PORT: "80" }, { withoutLowPorts: true }).then(async (listening) => (await listening.stop("SIGKILL"), "listened"), (error: Error) => error.message);
  expect(failure).toContain("animal-store: Cannot listen on 127.0.0.1:80: permission denied (EACCES); ports below 1024 need root or the CAP_NET_BIND_SERVICE capability: choose a METRICS_PORT from 1024 up\n");
  expect(failure).toStartWith("node server did not start (exit code 2):");
}, 30_000);

test("an address not on this machine, or a failure with no known fix, is one line naming the setting: exit 2 and 1", () => {
  const notHere = Object.assign(new Error("listen EADDRNOTAVAIL: address not available 10.9.9.9:8080"), { code: "EADDRNOTAVAIL" });
  expect(listenProblem(notHere, "10.9.9.9:8080", "PORT")).toEqual({
    message: "Cannot listen on 10.9.9.9:8080: the address is not available on this machine (EADDRNOTAVAIL); set HOST to one of its addresses, e.g. 127.0.0.1, or 0.0.0.0 for every interface",
    exitCode: 2,
  });
  const other = Object.assign(new Error("listen ENOBUFS: no buffer space\n    at listen"), { code: "ENOBUFS" });
  expect(listenProblem(other, "127.0.0.1:8080", "METRICS_PORT")).toEqual({
    message: "Cannot listen on 127.0.0.1:8080: listen ENOBUFS: no buffer space (ENOBUFS); check HOST and METRICS_PORT",
    exitCode: 1,
  });
});
