/**
 * @module
 * A wrap may use every member of the request's `Headers` on every adapter: Node's lazy request (served
 * by `serveNode`, on Node and on Deno) gives what the runtime's own `Headers` of the same header lines
 * gives, as `Bun.serve`'s and `Deno.serve`'s requests do.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { captureOutput } from "./output.ts";
import { rawExchange } from "./raw-http.ts";

const FIXTURE = "test/fixtures/headers-wrap-server.ts";

/** Each adapter, and the runtime command that serves the fixture with it. */
const TARGETS = [
  ["serveBun on Bun", "bun", ["node_modules/.bin/bun", FIXTURE]],
  ["serveDeno on Deno", "deno", ["node_modules/.bin/deno", "run", "--allow-net", "--allow-env", "--allow-read", FIXTURE]],
  ["serveNode on Deno", "node", ["node_modules/.bin/deno", "run", "--allow-net", "--allow-env", "--allow-read", FIXTURE]],
  ["serveNode on Node", "node", ["node", "--import", "tsx", FIXTURE]],
] as const;

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

const children = new Set<Subprocess>();
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

/** Starts the fixture with `command` serving through `serve`, and resolves with its URL. */
async function started(command: readonly string[], serve: string): Promise<{ url: string; child: Subprocess }> {
  const child = Bun.spawn([...command], { env: { ...process.env, SERVE: serve, HEADER_LINES: JSON.stringify(LINES) }, stdout: "pipe", stderr: "pipe" });
  children.add(child);
  const output = captureOutput(child);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const url = /listening on (\S+)/.exec(output())?.[1];
    if (url !== undefined) return { url, child };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`The fixture did not start:\n${output()}`);
    await Bun.sleep(20);
  }
}

describe("a wrap using the request's headers", () => {
  test.each(TARGETS)("%s: every Headers member gives what the runtime's own Headers of the same lines gives, and the app answers", async (_name, serve, command) => {
    const { url, child } = await started(command, serve);
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
