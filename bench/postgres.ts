/**
 * @module
 * PostgreSQL store benchmark: durable creates per second at concurrency 1, 16 and 64 for one
 * store instance and for three on one database, beside the JSON-file store in the same run; and
 * list latency through the whole app with 1,000 and 1,000,000 pets.
 *
 * Run with `npm run bench:postgres` (Bun, Bun's `SQL` client). It starts its own PostgreSQL (the
 * one the tests use, with `fsync` on: every create is durable), or uses `DATABASE_URL` when set
 * (the database must be empty: the benchmark creates its tables there).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import type { PetStore } from "../src/mod.ts";
import { createApp } from "../src/mod.ts";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { openPostgresStore } from "../adapters/postgres-store/mod.ts";
import { postgresServer } from "../test/postgres-server.ts";

const FOLDER = join("data", "bench-postgres");
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 3);

function report(...cells: string[]): void {
  console.log(cells.join("  |  "));
}

/** A new empty database: on the benchmark's own server, or the one `DATABASE_URL` names. */
async function newDatabase(): Promise<string> {
  return process.env["DATABASE_URL"] ?? (await (await postgresServer()).createDatabase());
}

/** `count` stores on one new database, each with its own client (as separate instances would be). */
async function postgresStores(count: number): Promise<{ stores: PetStore[]; close(): Promise<void> }> {
  const url = await newDatabase();
  const clients = Array.from({ length: count }, () => new SQL(url, { max: 10 }));
  const stores = await Promise.all(clients.map((sql) => openPostgresStore({ sql, timeoutMs: 30_000 })));
  return { stores, close: async () => void (await Promise.all(clients.map((sql) => sql.close()))) };
}

/** Creates per second with `concurrency` creates always in flight, spread over the stores. */
async function createRate(stores: readonly PetStore[], concurrency: number, seconds: number): Promise<number> {
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async (w: number) => {
    const store = stores[w % stores.length]!;
    while (performance.now() < deadline) {
      await store.create({ name: `bench ${done}`, categoryId: done, status: "available" });
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return done / ((performance.now() - started) / 1000);
}

/** Median microseconds of one `GET /v1/pets?…` through the whole app, over `runs` requests. */
async function listMedian(store: PetStore, query: string, runs: number): Promise<number> {
  const app = createApp({ store, apiKeys: ["k"] });
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const request = new Request(`http://bench/v1/pets?${query}`, { headers: { authorization: "Bearer k" } });
    const started = performance.now();
    const response = await app.fetch(request);
    await response.arrayBuffer();
    times.push((performance.now() - started) * 1000);
    if (response.status !== 200) throw new Error(`list answered ${response.status}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** A database holding `count` pets (every 50th and the last 20 sold), written in bulk. */
async function filledDatabase(count: number): Promise<{ store: PetStore; close(): Promise<void> }> {
  const url = await newDatabase();
  const sql = new SQL(url);
  const store = await openPostgresStore({ sql });
  await sql`insert into pets (id, name, category_id, status)
    select i, 'pet ' || i, i % 100, case when i % 50 = 0 or i > ${count - 20} then 'sold' else 'available' end
    from generate_series(1, ${count}) as i`;
  await sql`update animal_store set last_pet_id = ${count}`;
  await sql`vacuum analyze pets`; // as autovacuum would have done on a database that grew over time
  return { store, close: () => sql.close() };
}

rmSync(FOLDER, { recursive: true, force: true });
mkdirSync(FOLDER, { recursive: true });
console.log(`PostgreSQL store benchmark, Bun ${Bun.version}, ${new Date().toISOString()}, ${SECONDS} s per figure`);

const rates: Record<string, number[]> = { file: [], one: [], three: [] };
for (const concurrency of [1, 16, 64]) {
  const fileStore = await openJsonFileStore(join(FOLDER, `creates-${concurrency}.json`), { logger: { info() {}, warn() {} } });
  rates["file"]!.push(await createRate([fileStore], concurrency, SECONDS));
  await fileStore.close();
  for (const [name, instances] of [["one", 1], ["three", 3]] as const) {
    const { stores, close } = await postgresStores(instances);
    rates[name]!.push(await createRate(stores, concurrency, SECONDS));
    await close();
  }
  report(
    `durable creates/s at concurrency ${concurrency}`,
    `file ${Math.round(rates["file"]!.at(-1)!)}`,
    `postgres, 1 instance ${Math.round(rates["one"]!.at(-1)!)}`,
    `postgres, 3 instances ${Math.round(rates["three"]!.at(-1)!)}`,
  );
}
for (const name of ["one", "three"]) {
  const [c1 = 1, , c64 = 0] = rates[name]!;
  report(`postgres, ${name === "one" ? "1 instance" : "3 instances"}: creates at c64 / c1`, `${(c64 / c1).toFixed(1)}x`);
}

// Both sizes are filled first, then measured in alternating rounds, so drift on the machine
// falls on both alike.
const SIZES = [1_000, 1_000_000] as const;
const QUERIES = {
  "limit=20": () => "limit=20",
  "near the end": (count: number) => `limit=20&after=${count - 100}`,
  "status=sold": (count: number) => `status=sold&limit=20&after=${count - 40}`,
  "status=pending (none)": () => "status=pending&limit=20",
};
const filled = await Promise.all(SIZES.map((count) => filledDatabase(count)));
const samples = new Map<string, number[]>();
for (let round = 0; round < 5; round++) {
  for (const [i, count] of SIZES.entries()) {
    for (const [name, query] of Object.entries(QUERIES)) {
      const key = `${count} ${name}`;
      samples.set(key, [...(samples.get(key) ?? []), await listMedian(filled[i]!.store, query(count), 400)]);
    }
  }
}
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const count of SIZES) {
  report(`list p50 with ${count} pets`, ...Object.keys(QUERIES).map((name) => `${name}: ${median(samples.get(`${count} ${name}`)!).toFixed(0)} µs`));
}
for (const name of Object.keys(QUERIES)) {
  report(`${name} list p50, 1M pets / 1k pets`, `${(median(samples.get(`1000000 ${name}`)!) / median(samples.get(`1000 ${name}`)!)).toFixed(2)}x`);
}
await Promise.all(filled.map((database) => database.close()));
rmSync(FOLDER, { recursive: true, force: true });
process.exit(0);
