/**
 * @module
 * The remembered page texts under a small heap, as issue 48 found them: the standalone server on Node
 * with `--max-old-space-size=96` and the JSON-file store, 11,200 pets named with 200 two-byte
 * characters each, and 16 clients walking 11,000 different full pages of 100 (each page once, every
 * one tagged, so every one remembered). Prints how many pages were answered, whether the server
 * lived, and its peak resident memory. Before the memo counted its bytes as the heap keeps them, the
 * heap ran out (SIGABRT) after about 5,600 pages.
 *
 * `bun bench/page-memo.ts`; `MEMO_CHECKOUT=<folder>` runs another checkout's server (its node_modules
 * installed), `MEMO_RUNTIME=bun|deno` another runtime (the heap limit is Node's and Deno's V8 flag);
 * `MEMO_PAGES`, `MEMO_PETS` and `MEMO_HEAP_MIB` change the numbers.
 */
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Runtime } from "./targets.ts";
import { KEY } from "./fixtures.ts";
import { ROOT, runArgv } from "./targets.ts";

const RUNTIME = (process.env.MEMO_RUNTIME ?? "node") as Runtime;
const CHECKOUT = resolve(process.env.MEMO_CHECKOUT ?? ROOT);
const PAGES = Number(process.env.MEMO_PAGES ?? 11_000);
const PETS = Number(process.env.MEMO_PETS ?? 11_200);
const HEAP_MIB = Number(process.env.MEMO_HEAP_MIB ?? 96);
const CLIENTS = 16;
const PAGE_SIZE = 100;

/** A data file of the JSON-file store holding `count` pets named with 200 two-byte characters. */
function writeDataFile(path: string, count: number): void {
  const name = "ж".repeat(200);
  const lines = ['{"format":"animal-store-pets","version":1}'];
  for (let id = 1; id <= count; id++) lines.push(JSON.stringify({ id, name, categoryId: id % 10, status: "available" }));
  writeFileSync(path, `${lines.join("\n")}\n`);
}

/** The peak resident memory of a process, in bytes (0 once it is gone). */
function peakRss(pid: number): number {
  try {
    return Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The argv that runs the server with the heap limit: Node's option, Deno's V8 flag; Bun has none. */
function serverArgv(): string[] {
  const argv = runArgv(RUNTIME, "adapters/server/start-" + RUNTIME + ".ts");
  if (RUNTIME === "node") return [argv[0]!, `--max-old-space-size=${HEAP_MIB}`, ...argv.slice(1)];
  if (RUNTIME === "deno") return [argv[0]!, argv[1]!, `--v8-flags=--max-old-space-size=${HEAP_MIB}`, ...argv.slice(2)];
  return argv;
}

const folder = mkdtempSync(join(tmpdir(), "page-memo-"));
const dataFile = join(folder, "pets.json");
writeDataFile(dataFile, PETS);
const log = join(folder, "server.log");
const server = Bun.spawn(serverArgv(), { cwd: CHECKOUT, env: { ...process.env, PORT: "0", API_KEYS: KEY, STORE: "file", DATA_FILE: dataFile }, stdout: openSync(log, "w"), stderr: openSync(log, "a") });
try {
  const started = Date.now();
  while (!/listening on (\S+)/.test(readFileSync(log, "utf8"))) {
    if (server.exitCode !== null || Date.now() - started > 60_000) throw new Error(`the server did not start: ${readFileSync(log, "utf8")}`);
    await Bun.sleep(50);
  }
  const url = /listening on (\S+)/.exec(readFileSync(log, "utf8"))![1]!;
  let next = 0;
  let answered = 0;
  let peak = 0;
  let failure: string | undefined;
  const walkStarted = Date.now();
  const client = async () => {
    while (next < PAGES && failure === undefined) {
      const after = next++;
      try {
        const response = await fetch(`${url}/pets?limit=${PAGE_SIZE}&after=${after}`, { headers: { authorization: `Bearer ${KEY}` } });
        const pets = (await response.json()) as unknown[];
        if (response.status !== 200 || pets.length !== PAGE_SIZE) throw new Error(`page after ${after} answered ${response.status} with ${pets.length} pets`);
        answered++;
        if (answered % 500 === 0) peak = Math.max(peak, peakRss(server.pid));
      } catch (error) {
        failure ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  peak = Math.max(peak, peakRss(server.pid));
  const seconds = (Date.now() - walkStarted) / 1000;
  const alive = server.exitCode === null && server.signalCode === null;
  console.log(`${RUNTIME} at ${CHECKOUT}, heap limit ${HEAP_MIB} MiB, ${PETS} pets of 200 two-byte characters, ${CLIENTS} clients`);
  console.log(`pages answered: ${answered} of ${PAGES} in ${seconds.toFixed(1)} s; server ${alive ? "alive" : `ended (${server.signalCode ?? `exit ${server.exitCode}`})`}; peak RSS ${(peak / 1024 / 1024).toFixed(0)} MiB`);
  if (failure !== undefined) console.log(`first failure: ${failure}`);
  if (!alive) console.log(readFileSync(log, "utf8").split("\n").filter((line) => /heap|memory|Abort/i.test(line)).slice(0, 5).join("\n"));
} finally {
  server.kill("SIGKILL");
  await server.exited;
  rmSync(folder, { recursive: true, force: true });
}
