/**
 * @module
 * What queued spans cost a server when the collector stalls: 6,000 list requests with a 14 KB
 * `User-Agent` (`SPAN_AGENT_KB`), 16 at a time, to a fresh server exporting to a collector that takes
 * connections and never answers, and the same to a server without tracing. Printed per runtime: the
 * heap the server keeps (after a full collection, read by `heap-probe.ts`) and its resident memory,
 * each as growth over the run. The span queue holds 2,048 spans whatever their size, so what bounds it
 * in bytes is the length an attribute may keep (`OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`).
 *
 * `bun bench/span-queue-memory.ts`; `SPAN_RUNTIMES=deno` narrows it, `SPAN_CHECKOUT=<folder>` runs
 * another checkout's server (its node_modules installed), `SPAN_SETTINGS=NAME=value,...` adds settings.
 */
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Runtime } from "./targets.ts";
import { KEY } from "./fixtures.ts";
import { parseSettings } from "./pinned.ts";
import { ROOT, runArgv } from "./targets.ts";

const RUNTIMES = (process.env.SPAN_RUNTIMES ?? "bun,deno,node").split(",") as Runtime[];
const CHECKOUT = resolve(process.env.SPAN_CHECKOUT ?? ROOT);
const SETTINGS = parseSettings(process.env.SPAN_SETTINGS ?? "");
const REQUESTS = 6000;
const CLIENTS = 16;
const AGENT = `bench/1.0 (${"x".repeat(Number(process.env.SPAN_AGENT_KB ?? 14) * 1024)})`;

const PROBE = join(import.meta.dir, "heap-probe.ts");

/** Resident memory of a process, in bytes. */
function rss(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;
}

/** The argv that runs the server with the heap probe loaded first. */
function probedArgv(runtime: Runtime): string[] {
  const [command, ...rest] = runArgv(runtime, `adapters/server/start-${runtime}.ts`);
  if (runtime === "bun") return [command!, "--preload", PROBE, ...rest];
  if (runtime === "deno") return [command!, rest[0]!, "--v8-flags=--expose-gc", "--preload", PROBE, ...rest.slice(1)];
  return [command!, "--expose-gc", ...rest.slice(0, 2), "--import", PROBE, ...rest.slice(2)];
}

/** The heap the server kept at its last probe, once a probe after `since` has come. */
async function keptHeap(log: string, since: number): Promise<number> {
  for (;;) {
    const lines = readFileSync(log, "utf8").split("\n").filter((line) => line.startsWith("heap-probe "));
    if (lines.length > since) return Number(lines.at(-1)!.split(" ")[1]);
    await Bun.sleep(100);
  }
}

/** How many probes the server has printed so far. */
function probes(log: string): number {
  return readFileSync(log, "utf8").split("\n").filter((line) => line.startsWith("heap-probe ")).length;
}

/** A collector that reads each export's headers and never answers. */
function stalledCollector(): { url: string; stop(): void } {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  return { url: `http://127.0.0.1:${listener.port}`, stop: () => listener.stop(true) };
}

/** Starts the server with `env` and resolves with its URL and pid once it listens. */
async function startServer(runtime: Runtime, env: Record<string, string>, log: string): Promise<{ url: string; child: ReturnType<typeof Bun.spawn> }> {
  const child = Bun.spawn(probedArgv(runtime), {
    cwd: CHECKOUT,
    env: { ...process.env, PORT: "0", API_KEYS: KEY, STORE: "memory", LOG: "off", ...SETTINGS, ...env },
    stdout: openSync(log, "w"),
    stderr: openSync(log, "a"),
  });
  const started = Date.now();
  while (!/listening on (\S+)/.test(readFileSync(log, "utf8"))) {
    if (child.exitCode !== null || Date.now() - started > 60_000) throw new Error(`${runtime} did not start: ${readFileSync(log, "utf8")}`);
    await Bun.sleep(50);
  }
  return { url: /listening on (\S+)/.exec(readFileSync(log, "utf8"))![1]!, child };
}

/** The growth of the server's kept heap and of its resident memory over the run, in bytes. */
async function growth(runtime: Runtime, traced: boolean): Promise<{ heap: number; rss: number }> {
  const folder = mkdtempSync(join(tmpdir(), "span-queue-"));
  const collector = stalledCollector();
  const log = join(folder, "server.log");
  const { url, child } = await startServer(runtime, traced ? { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } : {}, log);
  try {
    const headers = { authorization: `Bearer ${KEY}`, "user-agent": AGENT };
    // A few requests first, so that what loading the code takes is not counted.
    for (let i = 0; i < 50; i++) await (await fetch(`${url}/pets?limit=1`, { headers })).arrayBuffer();
    await Bun.sleep(1000);
    const before = { heap: await keptHeap(log, probes(log)), rss: rss(child.pid) };
    let next = 0;
    const client = async () => {
      while (next++ < REQUESTS) {
        const response = await fetch(`${url}/pets?limit=1`, { headers });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${runtime} answered ${response.status}`);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    await Bun.sleep(2000); // let the runtime settle after the load
    return { heap: (await keptHeap(log, probes(log))) - before.heap, rss: rss(child.pid) - before.rss };
  } finally {
    child.kill("SIGKILL");
    await child.exited;
    collector.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
console.log(`${REQUESTS} lists with a ${AGENT.length}-character User-Agent, ${CLIENTS} at a time, collector stalled; ${CHECKOUT}${Object.keys(SETTINGS).length > 0 ? ` with ${JSON.stringify(SETTINGS)}` : ""}`);
for (const runtime of RUNTIMES) {
  const [traced, untraced] = [await growth(runtime, true), await growth(runtime, false)];
  console.log(`${runtime}: kept heap grew ${mb(traced.heap)} MB traced, ${mb(untraced.heap)} MB untraced; RSS ${mb(traced.rss)} MB traced, ${mb(untraced.rss)} MB untraced`);
}
