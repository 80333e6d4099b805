/**
 * @module
 * A wrap may use every member of the request's `Headers` on every adapter: Node's lazy request (served
 * by `serveNode`, on Node and on Deno) gives what the runtime's own `Headers` of the same header lines
 * gives, as `Bun.serve`'s and `Deno.serve`'s requests do.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rawExchange } from "./raw-http.ts";
import { startWrapServer, stopWrapServers, WRAP_TARGETS } from "./wrap-servers.ts";

/** The header lines sent: names in mixed case, one repeated, two `Set-Cookie`. */
const LINES: readonly (readonly [string, string])[] = [
  ["Host", "pets.test"],
  ["Authorization", "Bearer key"],
  ["Accept", "*/*"],
  ["X-Multi", "a"],
  ["x-multi", "b"],
  ["Set-Cookie", "s=1"],
  ["Set-Cookie", "t=2"],
  ["X-Gone", "1"],
  ["Connection", "close"],
];

afterAll(stopWrapServers);

describe("a wrap using the request's headers", () => {
  test.each(WRAP_TARGETS)("%s: every Headers member gives what the runtime's own Headers of the same lines gives, and the app answers", async (_name, serve, command) => {
    const { url, child } = await startWrapServer(command, serve, "headers", { HEADER_LINES: JSON.stringify(LINES) });
    try {
      const request = `GET /v1/pets HTTP/1.1\r\n${LINES.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`;
      const exchange = await rawExchange(url, [request], { timeoutMs: 10_000 });
      expect(exchange.status).toBe(200);
      const { answered, members, real } = JSON.parse(exchange.body);
      // Deno.serve's request headers are immutable (Deno's own choice): changing them throws there.
      if (serve === "deno") real.changed = { threw: "TypeError" };
      expect({ answered, members }).toEqual({ answered: 200, members: real });
      expect(members.get).toEqual(["a, b", "a, b", null]);
    } finally {
      child.kill("SIGKILL");
      await child.exited;
    }
  }, 40_000);
});
