/**
 * @module
 * HTTP benchmark: on Bun, Deno and Node, the project against the runtime's raw server answering
 * precomputed bytes (the limit), the same API written with Hono, and the fastest framework peer of
 * the runtime written the idiomatic way (Elysia on Bun, Fastify on Node), each peer also with the
 * request log its users turn on and traced with its own OpenTelemetry package, under wrk load. Before
 * measuring, every target must answer as the project does (`equivalence.ts`). Targets are
 * interleaved (A, B, C, A, B, C …) over several rounds so machine drift cancels out; medians are
 * reported with their spread. A full run writes bench/RESULTS.md's tables and the block of
 * docs/benchmarks.md, each with when it ran and the goals as it met them (`report.ts`); a partial
 * one prints them only. Run from the repository root with `npm run bench`. Needs `wrk`
 * (Debian: `apt-get install wrk`). Settings: BENCH_SECONDS (3), BENCH_ROUNDS (4), BENCH_RUNTIMES,
 * BENCH_SCENARIOS (comma-separated, default all).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { stopChildrenOnExit } from "./children.ts";
import { answersOf, differences, PROBES } from "./equivalence.ts";
import type { Probe } from "./equivalence.ts";
import { GET_ID, KEY } from "./fixtures.ts";
import type { Measure, Run, RunFacts } from "./report.ts";
import { goalTable, pageBlock, replaceGeneratedBlock, runTime, runtimeTable, RUNTIME_NAME, tracedTable } from "./report.ts";
import type { Kind, Role, Runtime, Scenario, Server } from "./targets.ts";
import { startSink } from "./otlp-sink-process.ts";
import { BIN, planFor, roleOf, ROOT, start, writeDataFile } from "./targets.ts";


const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const RUNTIMES = (process.env.BENCH_RUNTIMES ?? "bun,deno,node").split(",") as Runtime[];
const MILLION = 1_000_000;
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? "list,get,sold-1k,sold-1M,create,create-c64").split(",") as Scenario[];
/** Only a run of every scenario on every runtime replaces bench/RESULTS.md. */
const FULL_RUN = process.env.BENCH_SCENARIOS === undefined && process.env.BENCH_RUNTIMES === undefined;

const PATHS: Record<Scenario, string> = {
  list: "/pets?limit=20",
  get: `/pets/${GET_ID}`,
  create: "/pets",
  "sold-1k": "/pets?status=sold&limit=20",
  "sold-1M": "/pets?status=sold&limit=20",
  "create-c64": "/pets",
};

/** Runs wrk against one target and scenario (not blocking the event loop, so a signal stops the run at once). */
async function measure(server: Server, scenario: Scenario, seconds: number): Promise<Measure> {
  const connections = scenario === "create-c64" ? 64 : 32;
  const post = scenario === "create" || scenario === "create-c64";
  const argv = ["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-H", `Authorization: Bearer ${KEY}`];
  if (post) argv.push("-s", join(import.meta.dir, "post.lua"));
  argv.push(server.url + PATHS[scenario]);
  const text = await new Response(Bun.spawn(argv).stdout).text();
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1];
  if (errors !== undefined) console.warn(`  ${server.url}${PATHS[scenario]}: ${errors} non-2xx answers`);
  return { rps, p50: latency(text, "50%"), p99: latency(text, "99%"), rssMiB: rss(server.pid) };
}

/** A latency percentile from wrk's output, in milliseconds. */
function latency(text: string, percentile: string): number {
  const match = new RegExp(`${percentile}\\s+([\\d.]+)(us|ms|s)`).exec(text);
  if (match === null) return Number.NaN;
  const scale = { us: 0.001, ms: 1, s: 1000 }[match[2] as "us" | "ms" | "s"];
  return Number(match[1]) * scale;
}

function rss(pid: number): number {
  try {
    const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return Number.NaN;
  }
}

if (Bun.spawnSync(["which", "wrk"]).exitCode !== 0) {
  console.error("bench needs wrk: install it with `apt-get install wrk` (Debian/Ubuntu) or `brew install wrk`");
  process.exit(1);
}

// Stopped half way (Ctrl-C, kill), by an error or at its end: no server or wrk of the run outlives it.
stopChildrenOnExit();
// The load before the first server starts: other work on the machine, which the page states beside the figures.
const [started, loadBefore] = [new Date(), loadavg()[0]!];
const dataFolder = join(ROOT, "data", "bench");
mkdirSync(dataFolder, { recursive: true });
const millionFile = join(dataFolder, "million.json");
// The traced targets' collector, for the whole run: it takes every export and decodes none.
const sink = await startSink(join(dataFolder, "otlp-sink.log"));
if (SCENARIOS.includes("sold-1M")) writeDataFile(millionFile, MILLION);

const probesOf = (scenario: Scenario): readonly Probe[] => PROBES[scenario.startsWith("sold") ? "sold" : scenario.replace("-c64", "")] ?? [];

/** The targets of one role on a runtime, the check's requests for them, and their servers once started. */
interface RoleServers {
  kinds: Kind[];
  probes: Probe[];
  readonly servers: Map<Kind, Server>;
}

/** Starts every server a role needs on a runtime, in the plan's order, each kept as soon as it runs (so it is stopped whatever follows). */
async function startRole(runtime: Runtime, role: Role, targets: RoleServers): Promise<void> {
  for (const kind of targets.kinds) {
    const pets = role === "million" ? MILLION : 1000;
    const dataFile = kind !== "project-file" ? undefined : role === "million" ? millionFile : join(dataFolder, `${runtime}-write.json`);
    if (dataFile !== undefined && role === "write") writeDataFile(dataFile, 1000);
    targets.servers.set(kind, await start(runtime, kind, pets, dataFile, undefined, sink));
  }
}

/** The differences between each server's answers and the project's for the role's probes (the limit gets the measured ones only). */
async function checkRole(servers: Map<Kind, Server>, probes: readonly Probe[]): Promise<string[]> {
  const reference = servers.has("project") ? "project" : "project-file";
  const project = await answersOf(servers.get(reference)!.url, probes);
  const found: string[] = [];
  for (const [kind, server] of servers) {
    if (kind === reference) continue;
    const own = kind === "limit" ? probes.filter((probe) => probe.measured) : probes;
    for (const difference of differences(project, await answersOf(server.url, own))) found.push(`${kind}: ${difference}`);
  }
  return found;
}

const results = new Map<string, Measure[]>();
const key = (runtime: Runtime, scenario: Scenario, kind: Kind) => `${runtime} ${scenario} ${kind}`;
const installedVersion = (name: string) => JSON.parse(readFileSync(join(import.meta.dir, "node_modules", name, "package.json"), "utf8")).version as string;
const versions: Record<string, string> = {
  bun: Bun.version,
  deno: Bun.spawnSync([join(BIN, "deno"), "--version"]).stdout.toString().split(" ")[1] ?? "?",
  node: Bun.spawnSync(["node", "--version"]).stdout.toString().trim(),
  wrk: Bun.spawnSync(["wrk", "--version"]).stdout.toString().split(" ")[1] ?? "?",
  hono: installedVersion("hono"),
  elysia: installedVersion("elysia"),
  fastify: installedVersion("fastify"),
  "@hono/otel": installedVersion("@hono/otel"),
  "@elysiajs/opentelemetry": installedVersion("@elysiajs/opentelemetry"),
  "@fastify/otel": installedVersion("@fastify/otel"),
  "@opentelemetry/sdk-trace": installedVersion("@opentelemetry/sdk-trace"),
};
const versionLine = `Bun ${versions.bun}, Deno ${versions.deno}, Node ${versions.node}, wrk ${versions.wrk}; Hono ${versions.hono}, Elysia ${versions.elysia}, Fastify ${versions.fastify}; OpenTelemetry SDK ${versions["@opentelemetry/sdk-trace"]}, @hono/otel ${versions["@hono/otel"]}, @elysiajs/opentelemetry ${versions["@elysiajs/opentelemetry"]}, @fastify/otel ${versions["@fastify/otel"]}`;
console.log(`HTTP benchmark ${started.toISOString()}: ${SECONDS}s per run, ${ROUNDS} rounds, versions ${JSON.stringify(versions)}`);

/** Runs every round of every scenario on a runtime, the targets interleaved, each server warmed up once first. */
async function measureRounds(runtime: Runtime, serverOf: (scenario: Scenario, kind: Kind) => Server): Promise<void> {
  const warmed = new Set<Server>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of SCENARIOS) {
      for (const kind of planFor(runtime, scenario)) {
        const server = serverOf(scenario, kind);
        if (!warmed.has(server)) await measure(server, scenario, 1);
        warmed.add(server);
        const result = await measure(server, scenario, SECONDS);
        const list = results.get(key(runtime, scenario, kind)) ?? [];
        list.push(result);
        results.set(key(runtime, scenario, kind), list);
        console.log(`${runtime} round ${round} ${scenario} ${kind}: ${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`);
      }
    }
  }
}

/** Starts every target of a runtime, checks that they answer alike, measures them and stops them. */
async function measureRuntime(runtime: Runtime): Promise<void> {
  const roles = new Map<Role, RoleServers>();
  for (const scenario of SCENARIOS) {
    const role: RoleServers = roles.get(roleOf(scenario)) ?? { kinds: [], probes: [], servers: new Map() };
    for (const kind of planFor(runtime, scenario)) if (!role.kinds.includes(kind)) role.kinds.push(kind);
    for (const probe of probesOf(scenario)) if (!role.probes.includes(probe)) role.probes.push(probe);
    roles.set(roleOf(scenario), role);
  }
  try {
    for (const [name, role] of roles) {
      await startRole(runtime, name, role);
      const found = await checkRole(role.servers, role.probes);
      if (found.length > 0) {
        throw new Error(`${runtime}: the targets do not answer as the project does, so their figures would not compare:\n  ${found.join("\n  ")}`);
      }
      console.log(`${runtime} ${name} servers answer alike: ${role.kinds.join(", ")} (${role.probes.length} requests each)`);
    }
    await measureRounds(runtime, (scenario, kind) => roles.get(roleOf(scenario))!.servers.get(kind)!);
  } finally {
    for (const role of roles.values()) for (const server of role.servers.values()) server.stop();
  }
}

try {
  for (const runtime of RUNTIMES) await measureRuntime(runtime);
} finally {
  sink.stop();
}

const run: Run = {
  runtimes: RUNTIMES,
  scenarios: SCENARIOS,
  plan: planFor,
  runs: (runtime, scenario, kind) => results.get(key(runtime, scenario, kind)),
};
const facts: RunFacts = { started, ended: new Date(), loadBefore, loadAfter: loadavg()[0]!, rounds: ROUNDS, seconds: SECONDS, versions: versionLine };
const runtimeTables = RUNTIMES.flatMap((runtime) => ["", `${RUNTIME_NAME[runtime]}:`, "", ...runtimeTable(run, runtime, true)]);
const report = [
  "# Benchmark results",
  "",
  `${runTime(facts)}, on this project's 2-core machine (client and server share it).`,
  `Versions: ${versionLine}.`,
  `Command: \`npm run bench\` (BENCH_SECONDS=${SECONDS}, BENCH_ROUNDS=${ROUNDS}); wrk -t1, 32 connections (64 for create-c64), keep-alive.`,
  "Requests/s as the median over the rounds (lowest–highest round); ratios as the ratio of the medians (lowest–highest",
  "ratio of a single round: the targets are interleaved, so within a round they met the same machine). Absolute req/s",
  "are noise on a shared 2-core machine; the ratios are the figures. The peers are Hono on every runtime, Elysia on Bun",
  "and Fastify on Node, each written the idiomatic way (`bench/servers/`), as its users get it and with the request log",
  "they turn on (`PEER_LOG=on`: Hono's `logger()`, text lines; Fastify's `logger: true`, Elysia with",
  "`@bogeychan/elysia-logger`, both pino); the project rows without a setting are the default `npm start` runs, its",
  "access log on. Every target answered the benchmark's requests as the project does before it was measured",
  "(`bench/equivalence.ts`).",
  "`sold-1k`/`sold-1M`: `GET /v1/pets?status=sold&limit=20` with 1,000 / 1,000,000 pets stored, only the last 20 sold.",
  "",
  "The goals of issue 53 in this run, and the sold list's scale (ratios of the medians, **bold** where met):",
  "",
  ...goalTable(run),
  ...runtimeTables,
  "",
  "Traced ÷ untraced, every request sampled (the same sampler, batch size and OTLP sink for all; each peer traced by its own package on the OpenTelemetry SDK, the project by its own recorder):",
  "",
  ...tracedTable(run),
  "",
].join("\n");
/** The hand-written notes at the end of RESULTS.md (from this heading on), kept when the figures are replaced. */
const NOTES_HEADING = "## Where the time goes";
const resultsPath = join(import.meta.dir, "RESULTS.md");
const previous = existsSync(resultsPath) ? readFileSync(resultsPath, "utf8") : "";
const notes = previous.includes(NOTES_HEADING) ? previous.slice(previous.indexOf(NOTES_HEADING)) : "";
const block = pageBlock(run, facts);
if (FULL_RUN) {
  writeFileSync(resultsPath, notes === "" ? report : `${report}\n${notes}`);
  const pagePath = join(ROOT, "docs", "benchmarks.md");
  writeFileSync(pagePath, replaceGeneratedBlock(readFileSync(pagePath, "utf8"), block));
}
// A partial run leaves the files alone and prints what a full one would write into the page, then the details.
console.log(`\n${block}\n${runtimeTables.join("\n")}`);
