import { describe, expect, test } from "bun:test";
import type { PetStore } from "../src/mod.ts";
import type { SqlClient, SqlQuery } from "../adapters/postgres-store/mod.ts";
import { health } from "../src/plugs/health/mod.ts";
import { createMetrics, METRICS_CONTENT_TYPE } from "../adapters/server/metrics.ts";
import { createMemoryStore, StoreUnavailableError } from "../src/mod.ts";
import { AUTH, call, errorOf, testApp } from "./helpers.ts";

/** An app wrapped by fresh metrics, with `/health` in front as the standalone server has it. */
function measuredApp(store: PetStore = createMemoryStore()) {
  const metrics = createMetrics({ basePath: "/v1" });
  const observed = metrics.observeStore(store);
  const app = metrics.wrap(testApp({ store: observed, plugs: [health()] }));
  return { app, metrics };
}

/** The value of one sample line, `name{labels}`, in the exposition; `undefined` when absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("metrics", () => {
  test("have no per-key label: a thousand named keys add no series, and no name or key is in the text (issue 50)", async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => ({ name: `client-${i}`, key: `secret-of-client-${i}` }));
    const metrics = createMetrics({ basePath: "/v1" });
    const app = metrics.wrap(testApp({ apiKeys: keys }));
    await call(app, "/v1/pets", { headers: { authorization: "Bearer secret-of-client-0" } });
    const one = (await metrics.text()).split("\n").length;
    for (const { key } of keys) await call(app, "/v1/pets", { headers: { authorization: `Bearer ${key}` } });
    const text = await metrics.text();
    expect(text.split("\n").length).toBe(one);
    expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets",method="GET",status="200"}')).toBe(1001);
    expect(text).not.toMatch(/client-|secret-of/);
  });

  test("the measured store keeps every method of the store it wraps, measured or not", async () => {
    const store = { ...createMemoryStore(), forget: (id: number) => Promise.resolve(`forgot ${id}`) };
    const observed = createMetrics({ basePath: "/v1" }).observeStore(store) as typeof store;
    expect(await observed.forget(7)).toBe("forgot 7");
  });

  test("requests are counted by route template, method and status, never by the path sent", async () => {
    const { app, metrics } = measuredApp();
    await call(app, "/v1/pets", { headers: AUTH });
    await call(app, "/v1/pets/12345", { headers: AUTH });
    await call(app, "/v1/pets/abc", { headers: AUTH });
    await call(app, "/v1/pets", { method: "DELETE", headers: AUTH });
    await call(app, "/v1/no-such-thing/98765", { headers: AUTH });
    await call(app, "/health");
    const text = await metrics.text();
    expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets",method="GET",status="200"}')).toBe(1);
    expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets/{petId}",method="GET",status="404"}')).toBe(1);
    expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets/{petId}",method="GET",status="400"}')).toBe(1);
    expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets",method="DELETE",status="405"}')).toBe(1);
    expect(valueOf(text, 'animal_store_http_requests_total{route="other",method="GET",status="404"}')).toBe(1);
    expect(valueOf(text, 'animal_store_http_requests_total{route="/health",method="GET",status="200"}')).toBe(1);
    expect(text).not.toContain("12345");
    expect(text).not.toContain("98765");
    expect(text).not.toContain("abc");
  });

  test("unknown methods and odd paths fall into a fixed set of label values", async () => {
    const { app, metrics } = measuredApp();
    await call(app, "/v1/pets", { method: "PROPFIND", headers: AUTH });
    await call(app, "/v1/pets/", { headers: AUTH });
    const text = await metrics.text();
    expect(valueOf(text, 'animal_store_http_requests_total{route="/v1/pets",method="other",status="405"}')).toBe(1);
    expect(valueOf(text, 'animal_store_http_requests_total{route="other",method="GET",status="404"}')).toBe(1);
    expect(text).not.toContain("PROPFIND");
  });

  test("request latency is a histogram per route and method, with cumulative buckets, a sum and a count", async () => {
    const { app, metrics } = measuredApp();
    for (let i = 0; i < 3; i++) await call(app, "/v1/pets", { headers: AUTH });
    const text = await metrics.text();
    const series = 'route="/v1/pets",method="GET"';
    expect(text).toContain("# TYPE animal_store_http_request_duration_seconds histogram\n");
    expect(valueOf(text, `animal_store_http_request_duration_seconds_count{${series}}`)).toBe(3);
    expect(valueOf(text, `animal_store_http_request_duration_seconds_bucket{${series},le="+Inf"}`)).toBe(3);
    expect(valueOf(text, `animal_store_http_request_duration_seconds_bucket{${series},le="10"}`)).toBe(3);
    const buckets = text.split("\n").filter((line) => line.startsWith(`animal_store_http_request_duration_seconds_bucket{${series}`)).map((line) => Number(line.split(" ")[1]));
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(valueOf(text, `animal_store_http_request_duration_seconds_sum{${series}}`)).toBeGreaterThan(0);
  });

  test("requests in flight are counted while they are answered", async () => {
    let release = () => {};
    const store = createMemoryStore();
    const slow: PetStore = { ...store, list: (query) => new Promise((resolve) => (release = () => resolve(store.list(query)))) };
    const { app, metrics } = measuredApp(slow);
    const pending = call(app, "/v1/pets", { headers: AUTH });
    await Bun.sleep(10);
    expect(valueOf(await metrics.text(), "animal_store_http_requests_in_flight")).toBe(1);
    release();
    await pending;
    expect(valueOf(await metrics.text(), "animal_store_http_requests_in_flight")).toBe(0);
  });

  test("store operations are counted by outcome and timed; a StoreUnavailableError counts as unavailable", async () => {
    const store = createMemoryStore();
    const failing: PetStore = { ...store, get: () => Promise.reject(new StoreUnavailableError("the disk is gone")) };
    const { app, metrics } = measuredApp(failing);
    await call(app, "/v1/pets", { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' });
    expect((await call(app, "/v1/pets/1", { headers: AUTH })).status).toBe(503);
    const text = await metrics.text();
    expect(valueOf(text, 'animal_store_store_operations_total{operation="create",outcome="ok"}')).toBe(1);
    expect(valueOf(text, 'animal_store_store_operations_total{operation="get",outcome="unavailable"}')).toBe(1);
    expect(valueOf(text, 'animal_store_store_operation_duration_seconds_count{operation="create"}')).toBe(1);
    expect(valueOf(await metrics.text(), 'animal_store_http_requests_total{route="/v1/pets/{petId}",method="GET",status="503"}')).toBe(1);
  });

  test("the file store's group commits, fsync times and keys held appear once the store reports them", async () => {
    const metrics = createMetrics({ basePath: "/v1" });
    expect(await metrics.text()).not.toContain("animal_store_file_commit_creates");
    metrics.fileStore.keysHeld(0);
    metrics.fileStore.committed(5, 0.002);
    metrics.fileStore.committed(1, 0.0004);
    metrics.fileStore.keysHeld(3);
    const text = await metrics.text();
    expect(valueOf(text, "animal_store_file_commit_creates_count")).toBe(2);
    expect(valueOf(text, "animal_store_file_commit_creates_sum")).toBe(6);
    expect(valueOf(text, 'animal_store_file_commit_creates_bucket{le="4"}')).toBe(1);
    expect(valueOf(text, 'animal_store_file_fsync_duration_seconds_bucket{le="0.0005"}')).toBe(1);
    expect(valueOf(text, "animal_store_idempotency_keys_held")).toBe(3);
  });

  test("PostgreSQL statements are timed by kind; statement_timeout and lost connections are counted apart", async () => {
    const metrics = createMetrics({ basePath: "/v1" });
    const failures: unknown[] = [undefined, { errno: "57014" }, new Error("Connection closed"), { code: "23505" }];
    const query: SqlQuery = () => {
      const failure = failures.shift();
      return failure === undefined ? Promise.resolve([]) : Promise.reject(failure);
    };
    const client: SqlClient = Object.assign(query, { begin: <T>(body: (sql: SqlQuery) => Promise<T>) => body(query) });
    const sql = metrics.observeSql(client);
    await sql`select 1`;
    await sql`select 2`.then(undefined, () => {});
    await sql.begin(async (transaction) => await transaction`insert into pets values (1)`).then(undefined, () => {});
    await sql`update animal_store set x = 1`.then(undefined, () => {});
    const text = await metrics.text();
    expect(valueOf(text, 'animal_store_postgres_statements_total{kind="read",outcome="ok"}')).toBe(1);
    expect(valueOf(text, 'animal_store_postgres_statements_total{kind="read",outcome="timeout"}')).toBe(1);
    expect(valueOf(text, 'animal_store_postgres_statements_total{kind="write",outcome="connection_error"}')).toBe(1);
    expect(valueOf(text, 'animal_store_postgres_statements_total{kind="write",outcome="failed"}')).toBe(1);
    expect(valueOf(text, 'animal_store_postgres_statement_duration_seconds_count{kind="read"}')).toBe(2);
  });

  test("process memory, start time, uptime and build info are reported", async () => {
    const text = await createMetrics({ basePath: "/v1" }).text();
    expect(valueOf(text, "process_resident_memory_bytes")).toBeGreaterThan(1_000_000);
    expect(valueOf(text, "process_start_time_seconds")).toBeLessThanOrEqual(Date.now() / 1000);
    expect(valueOf(text, "animal_store_uptime_seconds")).toBeGreaterThan(0);
    expect(valueOf(text, `animal_store_build_info{version="1.0.0",runtime="bun",runtime_version="${Bun.version}"}`)).toBe(1);
  });

  test("every family has HELP and TYPE lines before its samples, and every sample belongs to a declared family", async () => {
    const { app, metrics } = measuredApp();
    await call(app, "/v1/pets", { headers: AUTH });
    metrics.fileStore.keysHeld(0);
    const declared = new Map<string, string>();
    for (const line of (await metrics.text()).trimEnd().split("\n")) {
      const [, kind, declaredName, type] = /^# (HELP|TYPE) (\S+) ?(\S*)/.exec(line) ?? [];
      if (kind === "TYPE") declared.set(declaredName!, type!);
      if (kind !== undefined) continue;
      expect(line).toMatch(/^[a-z_]+(\{[a-z_]+="[^"\n]*"(,[a-z_]+="[^"\n]*")*\})? (-?[0-9.e+-]+|\+Inf|NaN)$/);
      const name = line.split(/[{ ]/)[0]!;
      const family = [name, name.replace(/_(bucket|sum|count)$/, "")].find((candidate) => declared.has(candidate));
      expect(family).toBeDefined();
    }
  });

  test("the metrics listener answers GET /metrics in the text format, and nothing else", async () => {
    const { metrics } = measuredApp();
    const response = await call(metrics.app, "/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(METRICS_CONTENT_TYPE);
    expect(await response.text()).toContain("# TYPE animal_store_http_requests_total counter");
    expect((await errorOf(await call(metrics.app, "/v1/pets"))).code).toBe("not_found");
    const post = await call(metrics.app, "/metrics", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });
});
