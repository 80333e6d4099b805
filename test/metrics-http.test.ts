/**
 * The metrics over HTTP, from the standalone server of every runtime: `GET /metrics` on its own
 * port, what traffic on the API shows there, and the store families of the JSON-file store and
 * of PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Runtime, ServerProcess } from "./server-process.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { tempDataFile } from "./temp.ts";

const RUNTIMES: readonly Runtime[] = ["bun", "deno", "deno-serve", "node"];
const KEY = "metrics-key";
const JSON_AUTH = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };

/** The metrics URL the server printed. */
function metricsUrl(server: ServerProcess): string {
  const url = /metrics on (http:\/\/\S+)/.exec(server.output())?.[1];
  if (url === undefined) throw new Error(`no metrics URL printed:\n${server.output()}`);
  return url;
}

/** The value of one sample, `name{labels}`, in a scrape; `undefined` when absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Some traffic on the API: a keyed create, a list, a get of it, a get of nothing, an unauthenticated list. */
async function traffic(base: string): Promise<void> {
  const created = await fetch(`${base}/pets`, { method: "POST", headers: { ...JSON_AUTH, "idempotency-key": "metrics-test-1" }, body: '{"name":"Rex","categoryId":1}' });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: number };
  expect((await fetch(`${base}/pets`, { headers: JSON_AUTH })).status).toBe(200);
  expect((await fetch(`${base}/pets/${id}`, { headers: JSON_AUTH })).status).toBe(200);
  expect((await fetch(`${base}/pets/424242`, { headers: JSON_AUTH })).status).toBe(404);
  expect((await fetch(`${base}/pets`)).status).toBe(401);
}

function metricsSuite(runtime: Runtime): void {
  describe(`metrics over HTTP on ${runtime}`, () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startServer(runtime, { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY, METRICS_PORT: "0", LOG: "off" });
    }, 30_000);
    afterAll(async () => {
      await server?.stop("SIGKILL");
    });

    test("GET /metrics on the metrics port counts the API's requests by route template, method and status", async () => {
      await traffic(server.url);
      const response = await fetch(metricsUrl(server));
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      const text = await response.text();
      expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets",method="POST",status="201"}')).toBe(1);
      expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets",method="GET",status="200"}')).toBe(1);
      expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets",method="GET",status="401"}')).toBe(1);
      expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets/{petId}",method="GET",status="200"}')).toBe(1);
      expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets/{petId}",method="GET",status="404"}')).toBe(1);
      expect(valueOf(text, 'animal_store_http_request_duration_seconds_count{route="/v1/pets/{petId}",method="GET"}')).toBe(2);
      expect(text).not.toContain("424242");
      expect(text).not.toContain('route="/metrics"');
    });

    test("the file store's group commits, fsync latency and idempotency keys held are reported", async () => {
      const text = await (await fetch(metricsUrl(server))).text();
      expect(valueOf(text, "animal_store_file_commit_creates_count")).toBe(1);
      expect(valueOf(text, "animal_store_file_fsync_duration_seconds_count")).toBe(1);
      expect(valueOf(text, "animal_store_idempotency_keys_held")).toBe(1);
      expect(valueOf(text, 'animal_store_store_operations_total{operation="create_with_key",outcome="ok"}')).toBe(1);
      expect(text).not.toContain("animal_store_postgres_");
    });

    test("build info names the runtime; open connections are reported where the server can count them", async () => {
      const text = await (await fetch(metricsUrl(server))).text();
      const runtimeName = runtime === "deno-serve" ? "deno" : runtime;
      expect(text).toMatch(new RegExp(`^animal_store_build_info\\{version="1\\.0\\.0",runtime="${runtimeName}",runtime_version="[0-9.]+"\\} 1$`, "m"));
      expect(valueOf(text, "process_resident_memory_bytes")).toBeGreaterThan(1_000_000);
      const countsConnections = runtime === "node" || runtime === "deno";
      expect(valueOf(text, "animal_store_http_open_connections") !== undefined).toBe(countsConnections);
    });

    test("the API's port does not serve /metrics", async () => {
      expect((await fetch(`${new URL(server.url).origin}/metrics`)).status).toBe(404);
    });
  });
}

for (const runtime of RUNTIMES) metricsSuite(runtime);

describe("without METRICS_PORT", () => {
  test("no metrics listener is started and the API's port answers /metrics 404", async () => {
    const server = await startServer("bun", { STORE: "memory", API_KEYS: KEY, LOG: "off" });
    try {
      expect(server.output()).not.toContain("metrics on");
      expect((await fetch(`${new URL(server.url).origin}/metrics`)).status).toBe(404);
    } finally {
      await server.stop("SIGKILL");
    }
  }, 30_000);
});

for (const runtime of ["bun", "node"] as const) {
  describe(`PostgreSQL metrics on ${runtime}`, () => {
    test("statements are timed by kind and counted by outcome", async () => {
      const database = await (await postgresServer()).createDatabase();
      const server = await startServer(runtime, { STORE: "postgres", DATABASE_URL: database, API_KEYS: KEY, METRICS_PORT: "0", LOG: "off" });
      try {
        await traffic(server.url);
        const text = await (await fetch(metricsUrl(server))).text();
        expect(valueOf(text, 'animal_store_postgres_statements_total{kind="write",outcome="ok"}')).toBeGreaterThanOrEqual(1);
        expect(valueOf(text, 'animal_store_postgres_statements_total{kind="read",outcome="ok"}')).toBeGreaterThanOrEqual(3);
        expect(valueOf(text, 'animal_store_postgres_statement_duration_seconds_count{kind="read"}')).toBeGreaterThanOrEqual(3);
        expect(valueOf(text, 'animal_store_postgres_statements_total{kind="read",outcome="connection_error"}')).toBe(0);
        expect(text).not.toContain("animal_store_file_commit_creates");
      } finally {
        await server.stop("SIGKILL");
      }
    }, 60_000);
  });
}
