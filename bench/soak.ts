/**
 * @module
 * Soak: the standalone server under a mixed load with hostile bursts and slow clients, for a few
 * minutes per runtime. Not a timed test: it prints what it saw. Run from the repository root with
 * `bun bench/soak.ts`. Settings: SOAK_SECONDS (180), SOAK_RUNTIMES (bun,deno,node), SOAK_CLIENTS
 * (16 normal clients), SOAK_SLOW (300 slow connections), SOAK_STORE (file or memory),
 * SOAK_RATE_LIMIT (a RATE_LIMIT such as `1000/s,burst=2000`; unset: none) and SOAK_METRICS (`on`:
 * metrics on their own port, scraped every 2 s).
 *
 * With a rate limit the server trusts a proxy (TRUST_PROXY) and one more client sends bad keys
 * under a new forwarded address each time, so the limiter's table of addresses fills and must stay
 * bounded; 429 answers are expected, and pets are read back with a key of their own, waiting out
 * any 429. With metrics, it prints the server's own figures (RSS and heap, answers by status) from
 * the scrapes.
 *
 * What it checks, and exits 1 when any fails: normal clients keep being served while slow clients
 * hold connections (slowloris-style, re-opened whenever the server cuts them); no answer is a 5xx;
 * every create answered 201 is read back afterwards. It prints requests served, latency
 * percentiles, answers by status, how many slow connections the server cut, and RSS at start and end.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopChildrenOnExit } from "./children.ts";
import type { Runtime } from "./targets.ts";
import { ROOT, runArgv } from "./targets.ts";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const RUNTIMES = (process.env.SOAK_RUNTIMES ?? "bun,deno,node").split(",") as Runtime[];
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 16);
const SLOW = Number(process.env.SOAK_SLOW ?? 300);
const STORE = process.env.SOAK_STORE ?? "file";
const RATE_LIMIT = process.env.SOAK_RATE_LIMIT ?? "";
const METRICS = process.env.SOAK_METRICS === "on";
const KEY = "soak-key";
const AUTH = { authorization: `Bearer ${KEY}` };
/** The key pets are read back with after the load: a bucket of its own when there is a limit. */
const CHECK_AUTH = { authorization: "Bearer soak-check-key" };

/** Raw requests sent in each hostile burst: malformed, oversized, odd framing and headers. */
const HOSTILE: readonly string[] = [
  `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"name": "Rex",`,
  `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n${"x".repeat(200_000)}`,
  `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 20009\r\n\r\n{"name":${"[".repeat(10000)}${"]".repeat(10000)}}`,
  `GET /v1/pets?${Array.from({ length: 1000 }, (_, i) => `p${i}=1`).join("&")} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
  `GET /v1/pets HTTP/1.1\r\nHost: x/v1/openapi.json?\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
  `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(65_536)}\r\n\r\n`,
  `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
  `GET /v1/pets/1%2F2 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nAuthorization: Bearer other\r\n\r\n`,
];

interface Started {
  readonly url: string;
  /** The metrics URL, with SOAK_METRICS=on. */
  readonly metrics: string | undefined;
  readonly pid: number;
  stop(): Promise<void>;
}

async function startServer(runtime: Runtime, dataFile: string): Promise<Started> {
  // As the benchmark runs it, Node's through the loader `npm run start:node` uses.
  const argv = runArgv(runtime, `adapters/server/start-${runtime}.ts`);
  const env = {
    ...process.env,
    PORT: "0",
    API_KEYS: `${KEY},soak-check-key`,
    STORE,
    DATA_FILE: dataFile,
    ...(RATE_LIMIT === "" ? {} : { RATE_LIMIT, TRUST_PROXY: "x-forwarded" }),
    ...(METRICS ? { METRICS_PORT: "0" } : {}),
  } as Record<string, string>;
  const child = Bun.spawn(argv, { cwd: ROOT, env, stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let output = "";
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    output += new TextDecoder().decode(value);
    const url = /listening on (\S+)/.exec(output)?.[1];
    if (url !== undefined) {
      void (async () => { while (!(await reader.read()).done); })();
      const metrics = /metrics on (\S+)/.exec(output)?.[1];
      return { url, metrics, pid: child.pid, stop: async () => (child.kill("SIGTERM"), void (await child.exited)) };
    }
  }
  child.kill("SIGKILL");
  throw new Error(`${runtime} server did not start:\n${output}`);
}

/** Resident memory of a process in MiB, from /proc. */
function rssMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
  return Math.round(kib / 1024);
}

/** Holds `count` slow connections open until `until`, each sending a header byte now and then; counts the ones the server cut. */
function slowClients(base: string, count: number, until: number): { cut: () => number; stop: () => void } {
  const url = new URL(base);
  const sockets = new Set<Socket>();
  let cut = 0;
  const open = () => {
    if (Date.now() >= until) return;
    const socket = connect(Number(url.port), url.hostname);
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("connect", () => socket.write("GET /v1/pets HTTP/1.1\r\nHost: x\r\n"));
    const drip = setInterval(() => socket.write("X"), 3000);
    socket.on("close", () => {
      clearInterval(drip);
      sockets.delete(socket);
      cut++;
      setTimeout(open, 100);
    });
  };
  for (let i = 0; i < count; i++) open();
  return { cut: () => cut, stop: () => sockets.forEach((socket) => socket.destroy()) };
}

/** Sends one hostile request on its own connection and resolves with the status it got (0: none). */
function hostile(base: string, request: string): Promise<number> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = "";
    const done = () => (clearTimeout(timer), socket.destroy(), resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)));
    const timer = setTimeout(done, 3000);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      if (/^HTTP\/1\.[01] [2-5]/.test(text)) done();
    });
    socket.on("error", done);
    socket.on("close", done);
    socket.on("connect", () => socket.write(request));
  });
}

/** Requests with a bad key, each from a new forwarded address, until `until`: fills the limiter's address table. */
async function manyAddresses(base: string, until: number, count: (key: string) => void): Promise<void> {
  for (let i = 0; Date.now() < until; i++) {
    const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    try {
      const response = await fetch(`${base}/pets`, { headers: { authorization: "Bearer wrong", "x-forwarded-for": address } });
      await response.arrayBuffer();
      count(`bad key ${response.status}`);
    } catch (error) {
      count((error as { code?: string }).code ?? "error");
    }
  }
}

/** What the server's own metrics said over the run: RSS and heap at each scrape, and its answers by status at the end. */
interface Scrapes {
  readonly rssMiB: number[];
  readonly heapMiB: number[];
  last: string;
}

/** Scrapes the metrics every 2 s until `until`. */
async function scrape(url: string, until: number, scrapes: Scrapes): Promise<void> {
  const value = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  while (Date.now() < until) {
    try {
      scrapes.last = await (await fetch(url)).text();
      scrapes.rssMiB.push(Math.round(value(scrapes.last, "process_resident_memory_bytes") / 2 ** 20));
      scrapes.heapMiB.push(Math.round(value(scrapes.last, "process_heap_bytes") / 2 ** 20));
    } catch {
      scrapes.rssMiB.push(Number.NaN);
    }
    await Bun.sleep(2000);
  }
}

/** The server's answers by status, summed over routes and methods, from a scrape. */
function answersByStatus(text: string): string {
  const byStatus = new Map<string, number>();
  for (const [, status, value] of text.matchAll(/^animal_store_http_requests_total\{[^}]*status="(\d+)"\} (\S+)$/gm)) {
    byStatus.set(status!, (byStatus.get(status!) ?? 0) + Number(value));
  }
  return [...byStatus].sort().map(([status, n]) => `${status}×${n}`).join(", ");
}

async function soak(runtime: Runtime): Promise<boolean> {
  const folder = mkdtempSync(join(tmpdir(), "animal-store-soak-"));
  const server = await startServer(runtime, join(folder, "pets.json"));
  const rssStart = rssMiB(server.pid);
  const until = Date.now() + SECONDS * 1000;
  const slow = slowClients(server.url, SLOW, until);
  const statuses = new Map<string, number>();
  const latencies: number[] = [];
  const acknowledged: number[] = [];
  const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
  const client = async (n: number) => {
    for (let i = 0; Date.now() < until; i++) {
      const started = performance.now();
      try {
        const response = i % 3 === 0
          ? await fetch(`${server.url}/pets`, { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: `{"name":"s${n}-${i}","categoryId":${n}}` })
          : await fetch(`${server.url}/pets?limit=20`, { headers: AUTH });
        count(String(response.status));
        if (response.status === 201) acknowledged.push(((await response.json()) as { id: number }).id);
        else await response.arrayBuffer();
        latencies.push(performance.now() - started);
      } catch (error) {
        count((error as { code?: string }).code ?? "error");
      }
    }
  };
  const bursts = (async () => {
    while (Date.now() < until) {
      for (const status of await Promise.all(HOSTILE.map((request) => hostile(server.url, request)))) count(`hostile ${status}`);
      await Bun.sleep(2000);
    }
  })();
  const scrapes: Scrapes = { rssMiB: [], heapMiB: [], last: "" };
  await Promise.all([
    ...Array.from({ length: CLIENTS }, (_, n) => client(n)),
    bursts,
    ...(RATE_LIMIT === "" ? [] : [manyAddresses(server.url, until, count)]),
    ...(server.metrics === undefined ? [] : [scrape(server.metrics, until, scrapes)]),
  ]);
  slow.stop();
  const rssEnd = rssMiB(server.pid);
  let missing = 0;
  for (const id of acknowledged) if ((await readBack(server.url, id)) !== 200) missing++;
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies[Math.floor(q * (latencies.length - 1))] ?? Number.NaN).toFixed(1);
  const fivexx = [...statuses].filter(([status]) => /(^| )5\d\d$/.test(status)).reduce((sum, [, n]) => sum + n, 0);
  console.log(`\n${runtime} (${STORE} store, ${SECONDS} s, ${CLIENTS} clients, ${SLOW} slow connections)`);
  console.log(`  normal requests answered: ${latencies.length} (${(latencies.length / SECONDS).toFixed(0)}/s), p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
  console.log(`  answers: ${[...statuses].sort().map(([status, n]) => `${status}×${n}`).join(", ")}`);
  console.log(`  slow connections cut by the server: ${slow.cut()}`);
  console.log(`  creates acknowledged: ${acknowledged.length}, read back: ${acknowledged.length - missing}`);
  console.log(`  RSS: ${rssStart} MiB at start, ${rssEnd} MiB at end`);
  if (RATE_LIMIT !== "") console.log(`  rate limit ${RATE_LIMIT}: ${statuses.get("429") ?? 0} of the normal requests answered 429`);
  if (scrapes.last !== "") {
    console.log(`  metrics, ${scrapes.rssMiB.length} scrapes: RSS ${scrapes.rssMiB.join(" ")} MiB; heap ${scrapes.heapMiB.join(" ")} MiB`);
    console.log(`  metrics, answers by status: ${answersByStatus(scrapes.last)}`);
  }
  const ok = latencies.length > 0 && fivexx === 0 && missing === 0;
  if (!ok) console.log(`  FAILED: ${fivexx} answers were 5xx, ${missing} acknowledged pets missing`);
  return ok;
}

/** Reads a pet back with the check key, waiting out a 429; resolves with the final status. */
async function readBack(base: string, id: number): Promise<number> {
  for (;;) {
    const response = await fetch(`${base}/pets/${id}`, { headers: CHECK_AUTH });
    await response.arrayBuffer();
    if (response.status !== 429) return response.status;
    await Bun.sleep(Number(response.headers.get("retry-after") ?? 1) * 1000);
  }
}

// Stopped half way or failed: no server or slow client of the run outlives it.
stopChildrenOnExit();
let failed = false;
for (const runtime of RUNTIMES) failed = !(await soak(runtime)) || failed;
process.exit(failed ? 1 : 0);
