/**
 * @module
 * Store benchmark: creates per second at concurrency 1, 16 and 64 (durable for the file store), list
 * latency with 1,000 and 1,000,000 pets, and file-store startup time and memory with 100,000 and
 * 1,000,000 pets, and memory store RSS per pet at 1,000,000. Run with `npm run bench:store` (Bun).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PetStore } from "../src/mod.ts";
import { createApp, createMemoryStore } from "../src/mod.ts";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";

const FOLDER = join("data", "bench");
const quiet = { info: () => {}, warn: () => {} };
function report(...cells: string[]): void {
  console.log(cells.join("  |  "));
}

/** Creates per second with `concurrency` creates always in flight, over about `seconds`. */
async function createRate(store: PetStore, concurrency: number, seconds: number): Promise<number> {
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      await store.create({ name: `bench ${done}`, categoryId: done, status: "available" });
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / ((performance.now() - started) / 1000);
}

/** Median microseconds of one `GET /v1/pets?…` through the whole app, over `runs` requests. */
async function listMedian(store: PetStore, query: string, runs: number): Promise<number> {
  const app = createApp({ store, apiKeys: ["k"] });
  const headers = { authorization: "Bearer k" };
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const request = new Request(`http://bench/v1/pets?${query}`, { headers });
    const started = performance.now();
    const response = await app.fetch(request);
    times.push((performance.now() - started) * 1000);
    if (response.status !== 200) throw new Error(`list answered ${response.status}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** A store holding `count` pets, every 50th sold, the last 20 sold. */
async function filledMemoryStore(count: number): Promise<PetStore> {
  const store = createMemoryStore();
  for (let i = 0; i < count; i++) {
    const status = i % 50 === 0 || i >= count - 20 ? "sold" : "available";
    await store.create({ name: `pet ${i}`, categoryId: i % 100, status });
  }
  return store;
}

/** Writes a data file of `count` pets directly, as the store would have. */
function writeDataFile(path: string, count: number): void {
  const lines = ['{"format":"animal-store-pets","version":1}'];
  for (let id = 1; id <= count; id++) lines.push(JSON.stringify({ id, name: `pet ${id}`, categoryId: id % 100, status: "available" }));
  writeFileSync(path, `${lines.join("\n")}\n`);
}

/** Opens a data file in a fresh process and reports its load time (ms) and resident memory (MiB). */
function startupInChild(path: string): { ms: number; rssMiB: number } {
  const script = `
    import { openJsonFileStore } from "./adapters/json-file-store/mod.ts";
    const started = performance.now();
    const store = await openJsonFileStore(${JSON.stringify(path)}, { logger: { info() {}, warn() {} } });
    const ms = performance.now() - started;
    Bun.gc(true);
    console.log(JSON.stringify({ ms, rssMiB: process.memoryUsage().rss / 2 ** 20 }));
    await store.close();`;
  const run = Bun.spawnSync([process.execPath, "-e", script]);
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return JSON.parse(run.stdout.toString()) as { ms: number; rssMiB: number };
}

/** Resident memory per pet of a memory store filled with `count` pets, measured in a fresh process. */
function memoryStoreBytesPerPet(count: number): number {
  const script = `
    import { createMemoryStore } from "./src/mod.ts";
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    const store = createMemoryStore();
    for (let i = 0; i < ${count}; i++) await store.create({ name: "pet " + i, categoryId: i % 100, status: "available" });
    Bun.gc(true);
    console.log((process.memoryUsage().rss - before) / ${count});`;
  const run = Bun.spawnSync([process.execPath, "-e", script]);
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return Number(run.stdout.toString());
}

rmSync(FOLDER, { recursive: true, force: true });
mkdirSync(FOLDER, { recursive: true });
console.log(`store benchmark, Bun ${Bun.version}, ${new Date().toISOString()}`);

for (const concurrency of [1, 16, 64]) {
  const memory = await createRate(createMemoryStore(), concurrency, 1);
  const fileStore = await openJsonFileStore(join(FOLDER, `creates-${concurrency}.json`), { logger: quiet });
  const file = await createRate(fileStore, concurrency, 2);
  await fileStore.close();
  report(`creates/s at concurrency ${concurrency}`, `memory ${Math.round(memory)}`, `file ${Math.round(file)}`);
}

for (const count of [1_000, 1_000_000]) {
  const store = await filledMemoryStore(count);
  const all = await listMedian(store, "limit=20", 2000);
  const sold = await listMedian(store, "status=sold&limit=20&after=" + (count - 40), 2000);
  report(`list p50 with ${count} pets`, `limit=20: ${all.toFixed(1)} µs`, `status=sold: ${sold.toFixed(1)} µs`);
}

for (const count of [100_000, 1_000_000]) {
  const path = join(FOLDER, `startup-${count}.json`);
  writeDataFile(path, count);
  const { ms, rssMiB } = startupInChild(path);
  report(`file store startup with ${count} pets`, `${Math.round(ms)} ms`, `RSS ${Math.round(rssMiB)} MiB (${Math.round((rssMiB * 2 ** 20) / count)} B/pet)`);
}
report("memory store RSS per pet with 1000000 pets", `${Math.round(memoryStoreBytesPerPet(1_000_000))} B`);
rmSync(FOLDER, { recursive: true, force: true });
