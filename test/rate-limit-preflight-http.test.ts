/**
 * CORS preflights under a rate limit, over HTTP on the standalone server of every runtime: issue 35's
 * reproduction (`RATE_LIMIT=2/s,burst=2`, an allowed origin, 40 preflights in a row all answered 204
 * with no RateLimit field) now meets the limit like any other answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Runtime, ServerProcess } from "./server-process.ts";
import { startServer } from "./server-process.ts";

const RUNTIMES: readonly Runtime[] = ["bun", "deno", "deno-serve", "node"];
const PAGE = "https://app.example";

for (const runtime of RUNTIMES) {
  describe(`CORS preflights under a rate limit on ${runtime}`, () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startServer(runtime, { STORE: "memory", API_KEYS: "key-a", RATE_LIMIT: "2/s,burst=2", CORS_ORIGINS: PAGE, LOG: "off" });
    }, 30_000);
    afterAll(async () => {
      await server?.stop("SIGKILL");
    });

    test("40 preflights from an allowed origin are counted: some are refused 429, every answer carries RateLimit, each still readable by the page", async () => {
      const answers: Response[] = [];
      for (let i = 0; i < 40; i++) {
        const response = await fetch(`${server.url}/pets`, {
          method: "OPTIONS",
          headers: { origin: PAGE, "access-control-request-method": "POST" },
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        answers.push(response);
      }
      const statuses = answers.map((response) => response.status);
      expect(statuses[0]).toBe(204);
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
      expect(new Set(statuses.filter((status) => status !== 204 && status !== 429))).toEqual(new Set());
      for (const [i, response] of answers.entries()) {
        expect({ i, ratelimit: response.headers.has("ratelimit"), origin: response.headers.get("access-control-allow-origin") }).toEqual({ i, ratelimit: true, origin: PAGE });
      }
    }, 30_000);
  });
}
