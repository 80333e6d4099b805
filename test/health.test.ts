import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { PetStore, Plug, StoreHealth } from "../src/mod.ts";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { tempDataFile } from "./temp.ts";
import { health } from "../src/plugs/health/mod.ts";
import { createMemoryStore } from "../src/mod.ts";
import { call, errorOf, testApp } from "./helpers.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";

function healthApp(options: { health?: () => Promise<StoreHealth>; stopping?: boolean } = {}) {
  const memory = createMemoryStore();
  const store: PetStore = options.health === undefined ? memory : { ...memory, health: options.health };
  return testApp({ store, plugs: [health({ stopping: () => options.stopping ?? false })] });
}

describe("GET /health", () => {
  test("answers 200 {\"status\":\"ok\"} without a key while the store takes writes, never cached", async () => {
    const response = await call(healthApp(), "/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  test("answers 503 service_unavailable naming the reason when the store cannot take writes", async () => {
    const app = healthApp({ health: async () => ({ ok: false, reason: "the data file could not be written (ENOSPC)" }) });
    const response = await call(app, "/health");
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toEqual({
      code: "service_unavailable",
      message: "Cannot take writes: the data file could not be written (ENOSPC)",
      status: 503,
    });
  });

  test("answers 503 once the server is shutting down", async () => {
    const response = await call(healthApp({ stopping: true }), "/health");
    expect(response.status).toBe(503);
    expect((await errorOf(response)).message).toBe("Cannot take writes: the server is shutting down");
  });

  test("a store whose health check throws answers 503 saying so", async () => {
    const response = await call(healthApp({ health: () => Promise.reject(new Error("boom")) }), "/health");
    expect(response.status).toBe(503);
    expect((await errorOf(response)).message).toBe("Cannot take writes: the store's health check failed (boom)");
  });

  test("a store without a health check counts as healthy", async () => {
    const memory = createMemoryStore();
    const store: PetStore = { create: memory.create, get: memory.get, list: memory.list, close: memory.close };
    const app = testApp({ store, plugs: [health()] });
    expect((await call(app, "/health")).status).toBe(200);
  });

  test("answers HEAD, and 405 with Allow to other methods", async () => {
    const app = healthApp();
    expect((await call(app, "/health", { method: "HEAD" })).status).toBe(200);
    const post = await call(app, "/health", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  test("lives outside the API: /v1/health is the API's, and needs a key", async () => {
    expect((await call(healthApp(), "/v1/health")).status).toBe(401);
  });
});

describe("liveness, readiness and startup, each its own probe", () => {
  /** An app whose store's health and liveness answer as given. */
  function probedApp(options: { health?: StoreHealth; live?: StoreHealth; stopping?: boolean; unready?: string }) {
    const memory = createMemoryStore();
    const store: PetStore = {
      ...memory,
      ...(options.health === undefined ? {} : { health: async () => options.health! }),
      ...(options.live === undefined ? {} : { live: async () => options.live! }),
    };
    const maintenance: Plug = () => ({ name: "maintenance", report: () => ({ unready: options.unready }) });
    return testApp({ store, plugs: [health({ stopping: () => options.stopping ?? false }), maintenance] });
  }
  const statuses = async (app: ReturnType<typeof probedApp>) =>
    Object.fromEntries(await Promise.all(["/health", "/health/ready", "/health/live", "/health/started"].map(async (path) => [path, (await call(app, path)).status])));

  test("all well: every probe answers 200 {\"status\":\"ok\"}, never cached, without a key; HEAD too, and 405 with Allow to other methods", async () => {
    const app = probedApp({});
    for (const path of ["/health/ready", "/health/live", "/health/started"]) {
      const response = await call(app, path);
      expect([response.status, await response.json(), response.headers.get("cache-control")]).toEqual([200, { status: "ok" }, "no-store"]);
      expect((await call(app, path, { method: "HEAD" })).status).toBe(200);
      const post = await call(app, path, { method: "POST" });
      expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    }
  });

  test("a store that cannot take writes now (a database down) fails readiness only: nothing to restart", async () => {
    const app = probedApp({ health: { ok: false, reason: "the database is unavailable (ECONNREFUSED)" } });
    expect(await statuses(app)).toEqual({ "/health": 503, "/health/ready": 503, "/health/live": 200, "/health/started": 200 });
    expect((await errorOf(await call(app, "/health/ready"))).message).toBe("Cannot take writes: the database is unavailable (ECONNREFUSED)");
  });

  test("draining and a plug's maintenance fail readiness only", async () => {
    expect(await statuses(probedApp({ stopping: true }))).toEqual({ "/health": 503, "/health/ready": 503, "/health/live": 200, "/health/started": 200 });
    expect(await statuses(probedApp({ unready: "maintenance until 12:00" }))).toEqual({ "/health": 503, "/health/ready": 503, "/health/live": 200, "/health/started": 200 });
  });

  test("a store that says only a restart can help fails liveness, naming why", async () => {
    const lost = { ok: false, reason: "the lock data/pets.json.lock was taken by another server" } as const;
    const app = probedApp({ health: lost, live: lost });
    expect(await statuses(app)).toEqual({ "/health": 503, "/health/ready": 503, "/health/live": 503, "/health/started": 200 });
    expect(await errorOf(await call(app, "/health/live"))).toEqual({
      code: "service_unavailable",
      message: "Cannot recover without a restart: the lock data/pets.json.lock was taken by another server",
      status: 503,
    });
  });

  test("the JSON-file store: its lock taken away fails liveness; closed as its server stops, it stays live", async () => {
    const path = tempDataFile();
    const store = await openJsonFileStore(path, { logger: { info: () => {}, warn: () => {} } });
    expect(await store.live!()).toEqual({ ok: true });
    rmSync(`${path}.lock`);
    expect(await store.live!()).toMatchObject({ ok: false, reason: expect.stringContaining("lock") });
    const other = await openJsonFileStore(tempDataFile(), { logger: { info: () => {}, warn: () => {} } });
    await other.close();
    expect([await other.live!(), await other.health!()]).toEqual([{ ok: true }, { ok: false, reason: "the store is closed" }]);
    await store.close();
  });
});

describe("GET /health over HTTP with the PostgreSQL store", () => {
  test.each(["bun", "deno", "node"] as const)(
    "on %s, a database whose transactions are read-only (default_transaction_read_only=on) answers 503 saying so",
    async (runtime) => {
      const url = await (await postgresServer()).createDatabase();
      const server = await startServer(runtime, { STORE: "postgres", DATABASE_URL: url, API_KEYS: "health-key" });
      const admin = new Bun.SQL(url, { max: 1 });
      try {
        const health = new URL("/health", server.url);
        expect((await fetch(health)).status).toBe(200);
        // New sessions start read-only; the server's sessions are ended, so it opens new ones.
        await admin.unsafe(`alter database "${new URL(url).pathname.slice(1)}" set default_transaction_read_only = on`);
        await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
        const answer = await settledHealth(health);
        expect(answer).toEqual({
          status: 503,
          message: "Cannot take writes: the database is read-only (default_transaction_read_only is on for this server's sessions)",
        });
        const create = await fetch(`${server.url}/pets`, {
          method: "POST",
          headers: { authorization: "Bearer health-key", "content-type": "application/json" },
          body: '{"name":"Rex","categoryId":1}',
        });
        expect(create.status).toBe(503);
      } finally {
        await admin.close();
        await server.stop("SIGKILL");
      }
    },
    30_000,
  );
});

/**
 * The health answer once the server has reconnected: answers saying a connection was lost, as the
 * first queries after the database ended its sessions may, are asked again (at most 50 times).
 */
async function settledHealth(url: URL): Promise<{ status: number; message?: string }> {
  let last: { status: number; message?: string } = { status: 0 };
  for (let attempt = 0; attempt < 50; attempt++) {
    const response = await fetch(url);
    const body = (await response.json()) as { message?: string };
    last = { status: response.status, ...(body.message === undefined ? {} : { message: body.message }) };
    if (response.status === 200 || last.message?.includes("read-only") === true) return last;
    await Bun.sleep(100);
  }
  return last;
}
