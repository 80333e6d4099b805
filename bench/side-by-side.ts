/**
 * @module
 * Side by side: variants of the project's standalone server (another checkout, other settings),
 * and the runtime's peer, loaded at the same time, each by its own wrk, so that every variant meets
 * the same machine at every instant and their requests/s compare what a request costs each. The
 * servers share one core and the wrk processes the other (`taskset`), so the scheduler gives each
 * server an equal share of the same core: two copies of one server come out within ±5% of each other
 * in every round, where unpinned they spread ±10% and interleaved rounds of one server ±30% on this
 * project's 2-core machine (bench/RESULTS.md, "Issue 24, third session"). Each server's CPU time per
 * request (from `/proc`) is printed beside its rate. For A/B of a change, not for the figures of
 * `npm run bench`.
 *
 * Run from the repository root:
 *   bun bench/side-by-side.ts <bun|deno|node> <list|get|create> <variant> <variant> ...
 * where a variant is `name[@checkout]=[NAME=value,...]`, `peer=` for Elysia on Bun or Fastify on
 * Node (`peer-<name>=` for another copy with other settings: `peer-log=PEER_LOG=on` is the peer with
 * a request log on), `hono=` (`hono-<name>=`) for the Hono peer (`hono-log=PEER_LOG=on` with the
 * request log its users turn on, on every runtime), or `limit=` for the runtime's bare server sending
 * precomputed answers, e.g.
 *   bun bench/side-by-side.ts bun get now= off=LOG=off before@../before= peer=
 * `NODE_LOADER=<module>` runs a Node variant with `node --import <module>` instead of the loader of
 * `npm run start:node`, e.g. `tsx=NODE_LOADER=tsx`.
 * `OTEL_EXPORTER_OTLP_ENDPOINT=sink` points a variant at an OTLP sink this command starts
 * (`otlp-sink.ts`, on the load core), and a variant named `<name>-traced` is also printed as a
 * ratio to `<name>`, each round's pair met the same machine:
 *   bun bench/side-by-side.ts node list now= now-traced=OTEL_EXPORTER_OTLP_ENDPOINT=sink peer= peer-traced=OTEL_EXPORTER_OTLP_ENDPOINT=sink
 * Settings: BENCH_SECONDS (3), BENCH_ROUNDS (5). Each server holds 1,000 pets in memory and writes
 * its output to `data/bench/side-<name>.log`. Needs Linux (`taskset`, `/proc`) and two cores.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { stopChildrenOnExit } from "./children.ts";
import { KEY } from "./fixtures.ts";
import type { Sink } from "./otlp-sink-process.ts";
import { startSink, withSink } from "./otlp-sink-process.ts";
import type { PinnedServer } from "./pinned.ts";
import { cpuMicros, LOAD_CORE, loadPinned, parseSettings, PINNED_PATHS, startPinned } from "./pinned.ts";
import { median } from "./report.ts";
import type { Runtime } from "./targets.ts";
import { PEER, ROOT, runArgv } from "./targets.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** One server to compare. */
interface Variant {
  readonly name: string;
  readonly checkout: string;
  readonly settings: Record<string, string>;
}

/** Whether a name is one of the runtimes the project serves on. */
function isRuntime(name: string): name is Runtime {
  return name === "bun" || name === "deno" || name === "node";
}

/** A variant from `name[@checkout]=[NAME=value,...]`. */
function parseVariant(text: string): Variant {
  const match = /^([\w.-]+)(?:@([^=]+))?=(.*)$/.exec(text);
  if (match === null) throw new Error(`a variant is name[@checkout]=[NAME=value,...], got ${JSON.stringify(text)}`);
  return { name: match[1]!, checkout: resolve(match[2] ?? ROOT), settings: parseSettings(match[3]!) };
}

/** Whether a variant is the runtime's peer (`peer`, or `peer-<name>` with other settings). */
function isPeer(variant: Variant): boolean {
  return variant.name === "peer" || variant.name.startsWith("peer-");
}

/** The benchmark's own server a variant name stands for (`peer`, `hono`, `limit`), if it names one. */
function targetOf(runtime: Runtime, variant: Variant): string | undefined {
  if (isPeer(variant)) return PEER[runtime];
  if (variant.name === "hono" || variant.name.startsWith("hono-")) return "hono";
  return variant.name === "limit" ? "limit" : undefined;
}

/** The command that runs a variant on a runtime: the standalone server of its checkout, or the benchmark's own. */
function serverCommand(runtime: Runtime, variant: Variant): string[] {
  const target = targetOf(runtime, variant);
  return runArgv(runtime, target === undefined ? `adapters/server/start-${runtime}.ts` : join(import.meta.dir, "servers", `${target}-${runtime}.ts`), variant.settings.NODE_LOADER);
}

/** Starts a variant's server pinned, waits until it listens, and seeds it. */
function startVariant(runtime: Runtime, variant: Variant, sink: Sink | undefined): Promise<PinnedServer> {
  const output = join(ROOT, "data", "bench", `side-${variant.name}.log`);
  const env = { ...process.env, PORT: "0", API_KEYS: KEY, STORE: "memory", PETS: "1000", ...withSink(variant.settings, sink) };
  // The benchmark's own servers hold their PETS pets from the start.
  return startPinned(serverCommand(runtime, variant), { cwd: variant.checkout, env, output, seed: targetOf(runtime, variant) === undefined });
}

/** One server's share of a round: requests/s, and CPU microseconds per request. */
interface Share {
  readonly rate: number;
  readonly cpuPerRequest: number;
}

/** Loads every server at once for `seconds`, each with its own wrk; each one's share, in order. */
async function loadTogether(servers: readonly PinnedServer[], scenario: string, seconds: number): Promise<Share[]> {
  const before = servers.map((server) => cpuMicros(server.process.pid));
  const loads = await Promise.all(servers.map(({ url }) => loadPinned(url, scenario, seconds)));
  return loads.map(({ rate, requests }, i) => ({ rate, cpuPerRequest: (cpuMicros(servers[i]!.process.pid) - before[i]!) / requests }));
}

const [runtime, scenario, ...specs] = process.argv.slice(2);
if (runtime === undefined || !isRuntime(runtime) || scenario === undefined || PINNED_PATHS[scenario] === undefined || specs.length < 2) {
  console.error("usage: bun bench/side-by-side.ts <bun|deno|node> <list|get|create> <name[@checkout]=[NAME=value,...] | peer[-<name>]=[...] | hono[-<name>]=[...] | limit=> <...> (two or more)");
  process.exit(2);
}
const variants = specs.map(parseVariant);
if (variants.some(isPeer) && PEER[runtime] === undefined) {
  console.error(`${runtime} has no peer but Hono to compare with: hono= (hono-log=PEER_LOG=on with its log)`);
  process.exit(2);
}
// Stopped half way (Ctrl-C, kill), by an error or at its end: no server or wrk of the run outlives it.
stopChildrenOnExit();
mkdirSync(join(ROOT, "data", "bench"), { recursive: true });
const sink = variants.some((variant) => Object.values(variant.settings).includes("sink")) ? await startSink(join(ROOT, "data", "bench", "side-sink.log"), ["taskset", "-c", LOAD_CORE]) : undefined;
const servers = await Promise.all(variants.map((variant) => startVariant(runtime, variant, sink)));
try {
  await loadTogether(servers, scenario, 1);
  const rounds: Share[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    rounds.push(await loadTogether(servers, scenario, SECONDS));
    console.log(`round ${round}: ${variants.map((variant, i) => `${variant.name} ${Math.round(rounds.at(-1)![i]!.rate)} (${rounds.at(-1)![i]!.cpuPerRequest.toFixed(1)} µs)`).join(", ")}`);
  }
  const first = variants[0]!.name;
  for (const [i, variant] of variants.entries()) {
    const rates = rounds.map((round) => round[i]!.rate);
    const ratios = rounds.map((round) => round[i]!.rate / round[0]!.rate);
    const costs = rounds.map((round) => round[i]!.cpuPerRequest / round[0]!.cpuPerRequest);
    console.log(`${variant.name}: median ${Math.round(median(rates)).toLocaleString("en-US")} req/s, ${median(ratios).toFixed(2)} of ${first} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}); ` +
      `CPU ${median(rounds.map((round) => round[i]!.cpuPerRequest)).toFixed(1)} µs a request, ${median(costs).toFixed(2)} of ${first}'s (rounds ${Math.min(...costs).toFixed(2)}–${Math.max(...costs).toFixed(2)})`);
  }
  for (const [i, variant] of variants.entries()) {
    const base = variants.findIndex((other) => `${other.name}-traced` === variant.name);
    if (base === -1) continue;
    const ratios = rounds.map((round) => round[i]!.rate / round[base]!.rate);
    console.log(`${variant.name} ÷ ${variants[base]!.name}: ${median(ratios).toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
  }
} finally {
  for (const server of servers) server.process.kill("SIGKILL");
  sink?.stop();
}

