/**
 * @module
 * What the server says as it starts besides where it listens: an address a browser can open for the
 * reference page (never `0.0.0.0`), and which optional features are on, without a secret.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Config } from "../adapters/server/config.ts";
import { readConfig } from "../adapters/server/config.ts";
import { featuresLine, referenceLine } from "../adapters/server/start-lines.ts";
import { startServer } from "./server-process.ts";

function config(env: Record<string, string>): Config {
  const result = readConfig({ API_KEYS: "k", ...env }, []);
  if (!result.ok) throw new Error(result.issues.join("; "));
  return result.value;
}

test("the reference page's line names the loopback for a wildcard HOST, the host itself otherwise, and PUBLIC_URL when it is set", () => {
  expect(referenceLine(config({ HOST: "0.0.0.0" }), 8080)).toBe("API reference: http://127.0.0.1:8080/");
  expect(referenceLine(config({ HOST: "::" }), 8080)).toBe("API reference: http://[::1]:8080/");
  expect(referenceLine(config({ HOST: "10.0.0.5" }), 81)).toBe("API reference: http://10.0.0.5:81/");
  expect(referenceLine(config({ HOST: "0.0.0.0", PUBLIC_URL: "https://example.com/pets-api" }), 8080)).toBe("API reference: https://example.com/pets-api/");
});

test("the features line names each optional feature that is on, as set, and none of a secret; with none on there is no line", () => {
  expect(featuresLine(config({}))).toBeUndefined();
  const line = featuresLine(config({
    RATE_LIMIT: "100/s,burst=200",
    CORS_ORIGINS: "http://localhost:3000,https://app.example.com",
    TRUST_PROXY: "x-forwarded",
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://user:secret@collector:4318",
    OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20c2VjcmV0",
    SERVER_TIMING: "on",
  }));
  expect(line).toBe("optional features on: rate limit per key (100 requests per second, in bursts of up to 200), CORS (http://localhost:3000, https://app.example.com), " +
    "trusted proxy (x-forwarded headers), traces (to http://collector:4318/v1/traces, http/protobuf), Server-Timing");
  expect(featuresLine(config({ CORS_ORIGINS: "*", TRUST_PROXY: "forwarded" }))).toBe("optional features on: CORS (any origin), trusted proxy (forwarded headers)");
  // On PostgreSQL the instances share one budget (docs/operating.md, "Several instances, one budget").
  expect(featuresLine(config({ STORE: "postgres", DATABASE_URL: "postgres://db/pets", RATE_LIMIT: "20/min" }))).toBe("optional features on: rate limit per key (20 requests per minute, shared by the instances on the database)");
});

test("a server on 0.0.0.0 prints the features on, then a reference page address a browser can open, then where it listens", async () => {
  await using server = await startServer("bun", { STORE: "memory", API_KEYS: "k", HOST: "0.0.0.0", RATE_LIMIT: "10/s", LOG: "off" });
  const port = new URL(server.url).port;
  expect(server.stdout().trimEnd().split("\n")).toEqual([
    "optional features on: rate limit per key (10 requests per second)",
    `API reference: http://127.0.0.1:${port}/`,
    `listening on http://0.0.0.0:${port}/v1`,
  ]);
  expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
});

test("docs/running.md says the start lines in the order the server prints them", () => {
  const said = /^On start the server prints (.*)$/m.exec(readFileSync("docs/running.md", "utf8"))?.[1] ?? "";
  const order = ["`optional features on:", "`API reference: http://127.0.0.1:8080/`", "`listening on http://127.0.0.1:8080/v1`"].map((line) => said.indexOf(line));
  expect(order.every((at) => at >= 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
});
