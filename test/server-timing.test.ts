/**
 * @module
 * `Server-Timing`, the standalone server's optional answer feature (a wrap): its header, its setting,
 * and its place in the served document. Over HTTP on every runtime: `operations-suite.ts`.
 */
import { describe, expect, test } from "bun:test";
import { readConfig } from "../adapters/server/config.ts";
import { serverTiming } from "../adapters/server/server-timing.ts";
import { OPENAPI_DOCUMENT } from "../src/mod.ts";
import { CORS_EXPOSED_HEADERS } from "../src/plugs/cors/mod.ts";
import { call, get, testApp } from "./helpers.ts";

/** The pattern the served document gives the header. */
function documentedPattern(): RegExp {
  const headers = (OPENAPI_DOCUMENT as { components: { headers: Record<string, { schema: { pattern: string } }> } }).components.headers;
  return new RegExp(headers["Server-Timing"]!.schema.pattern);
}

describe("Server-Timing", () => {
  test("every answer, an error's too, says how long the app took, as the served document describes it", async () => {
    const app = serverTiming(testApp());
    for (const response of [await get(app, "/v1/pets"), await call(app, "/v1/pets"), await get(app, "/v1/nowhere")]) {
      const value = response.headers.get("server-timing") ?? "";
      expect(value).toMatch(documentedPattern());
      expect(Number(value.slice("app;dur=".length))).toBeGreaterThanOrEqual(0);
    }
  });

  test("CORS lets a page read it: the document declares it on answers", () => {
    expect(CORS_EXPOSED_HEADERS).toContain("Server-Timing");
  });

  test("SERVER_TIMING is off by default, on with on or --server-timing on, and refused otherwise", () => {
    const unset = readConfig({}, []);
    expect(unset.ok && unset.value.serverTiming).toBeUndefined();
    const on = readConfig({ SERVER_TIMING: "on" }, []);
    expect(on.ok && on.value.serverTiming).toBe(true);
    const flag = readConfig({ SERVER_TIMING: "off" }, ["--server-timing", "on"]);
    expect(flag.ok && flag.value.serverTiming).toBe(true);
    const wrong = readConfig({ SERVER_TIMING: "yes" }, []);
    expect(wrong.ok ? [] : wrong.issues).toEqual(['SERVER_TIMING must be "on" or "off", got "yes"']);
  });
});
