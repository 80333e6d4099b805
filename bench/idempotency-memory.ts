/**
 * @module
 * What 100,000 idempotency keys of the longest kind (255 characters) cost a server's resident
 * memory, per runtime and store: the same 100,000 creates are sent once without keys and once with
 * a key each, each to a fresh server, and the RSS after each run (from /proc) is compared.
 *
 * `bun bench/idempotency-memory.ts` (all runtimes, memory and file stores); narrow it with
 * `MEMORY_RUNTIMES=deno MEMORY_STORES=file`; `MEMORY_KEYS=10000` for a quick look.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kind, Runtime } from "./targets.ts";
import { KEY } from "./fixtures.ts";
import { start } from "./targets.ts";

const RUNTIMES = (process.env.MEMORY_RUNTIMES ?? "bun,deno,node").split(",") as Runtime[];
const STORES = (process.env.MEMORY_STORES ?? "memory,file").split(",");
const COUNT = Number(process.env.MEMORY_KEYS ?? 100_000);
const CLIENTS = 16;
const KEY_LENGTH = 255;

/** Resident memory of a process, in bytes. */
function rss(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(line) * 1024;
}

/** The 255-character key of create `i`: distinct, the longest a key may be. */
function keyOf(i: number): string {
  return String(i).padStart(10, "0").padEnd(KEY_LENGTH, "k");
}

/** Sends `COUNT` creates from `CLIENTS` clients, each with its own key when `keyed`; resolves with the server's RSS afterwards. */
async function run(runtime: Runtime, store: string, keyed: boolean): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), "idempotency-memory-"));
  const kind: Kind = store === "file" ? "project-file" : "project";
  const server = await start(runtime, kind, 0, store === "file" ? join(folder, "pets.json") : undefined, join(folder, "server.log"));
  try {
    let next = 0;
    const client = async () => {
      while (next < COUNT) {
        const i = next++;
        const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...(keyed ? { "idempotency-key": keyOf(i) } : {}) };
        const response = await fetch(`${server.url}/pets`, { method: "POST", headers, body: `{"name":"pet ${i}","categoryId":1}` });
        await response.arrayBuffer();
        if (response.status !== 201) throw new Error(`create ${i} answered ${response.status}`);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    await Bun.sleep(2000); // let the runtime settle after the load
    return rss(server.pid);
  } finally {
    server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
console.log(`${COUNT} creates, ${KEY_LENGTH}-character keys; RSS in MiB after the run`);
console.log("runtime | store  | no keys | keys | keys cost");
for (const runtime of RUNTIMES) {
  for (const store of STORES) {
    const without = await run(runtime, store, false);
    const withKeys = await run(runtime, store, true);
    console.log(`${runtime.padEnd(7)} | ${store.padEnd(6)} | ${mib(without).padStart(7)} | ${mib(withKeys).padStart(4)} | +${mib(withKeys - without)}`);
  }
}
