/**
 * @module
 * HTTP benchmark: on Bun, Deno and Node, the project against the runtime's raw server answering
 * precomputed bytes (the limit) and against the same API written with Hono, under wrk load.
 * Targets are interleaved (A, B, C, A, B, C …) over several rounds so machine drift cancels out;
 * medians are reported. Run from the repository root with `npm run bench`. Needs `wrk`
 * (Debian: `apt-get install wrk`). Settings: BENCH_SECONDS (3), BENCH_ROUNDS (2), BENCH_RUNTIMES,
 * BENCH_SCENARIOS (comma-separated, default all).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CREATE_BODY, GET_ID, KEY, seedPet } from "./fixtures.ts";

type Runtime = "bun" | "deno" | "node";
type Kind = "limit" | "hono" | "direct" | "project" | "project-file";
type Scenario = "list" | "get" | "create" | "sold-1k" | "sold-1M" | "create-c64";

const ROOT = join(import.meta.dir, "..");
const BIN = join(ROOT, "node_modules", ".bin");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
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

interface Server {
  readonly url: string;
  readonly pid: number;
  stop(): void;
}

/** The command that starts a target on a runtime, and its working folder. */
function command(runtime: Runtime, kind: Kind): { argv: string[]; cwd: string } {
  const denoRun = [join(BIN, "deno"), "run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-run"];
  if (kind === "project" || kind === "project-file") {
    const entry = `adapters/start-${runtime}.ts`;
    if (runtime === "bun") return { argv: [join(BIN, "bun"), entry], cwd: ROOT };
    if (runtime === "deno") return { argv: [...denoRun, entry], cwd: ROOT };
    return { argv: ["node", "--import", "tsx", entry], cwd: ROOT };
  }
  const entry = `servers/${kind}-${runtime}.ts`;
  if (runtime === "bun") return { argv: [join(BIN, "bun"), entry], cwd: import.meta.dir };
  if (runtime === "deno") return { argv: [...denoRun, entry], cwd: import.meta.dir };
  return { argv: ["node", "--import", "tsx", entry], cwd: import.meta.dir };
}

async function start(runtime: Runtime, kind: Kind, pets: number, dataFile?: string): Promise<Server> {
  const { argv, cwd } = command(runtime, kind);
  // LOG=off: the raw and Hono servers log nothing either, so the comparison stays fair.
  const env: Record<string, string> = { ...process.env, PORT: "0", API_KEYS: KEY, PETS: String(pets), LOG: "off" } as Record<string, string>;
  env["STORE"] = kind === "project-file" ? "file" : "memory";
  if (dataFile !== undefined) env["DATA_FILE"] = dataFile;
  const child = Bun.spawn(argv, { cwd, env, stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let output = "";
  const started = Date.now();
  while (!/listening on (\S+)/.test(output)) {
    const { value, done } = await reader.read();
    if (done || Date.now() - started > 60_000) throw new Error(`${runtime} ${kind} did not start: ${output}`);
    output += new TextDecoder().decode(value);
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
  const url = /listening on (\S+)/.exec(output)![1]!;
  if ((kind === "project" || kind === "project-file" || kind === "direct") && dataFile === undefined) await seed(url, pets);
  return { url, pid: child.pid, stop: () => child.kill("SIGKILL") };
}

/** Creates the seed pets one by one, so ids and names line up with the other targets. */
async function seed(url: string, count: number): Promise<void> {
  for (let id = 1; id <= count; id++) {
    const response = await fetch(`${url}/pets`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify(seedPet(id, count)),
    });
    if (response.status !== 201) throw new Error(`seeding answered ${response.status}`);
  }
}

function writeDataFile(path: string, count: number): void {
  const lines = ['{"format":"animal-store-pets","version":1}'];
  for (let id = 1; id <= count; id++) lines.push(JSON.stringify({ id, ...seedPet(id, count) }));
  writeFileSync(path, `${lines.join("\n")}\n`);
}

interface Measure {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly rssMiB: number;
}

/** Runs wrk against one target and scenario. */
function measure(server: Server, scenario: Scenario, seconds: number): Measure {
  const connections = scenario === "create-c64" ? 64 : 32;
  const post = scenario === "create" || scenario === "create-c64";
  const argv = ["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-H", `Authorization: Bearer ${KEY}`];
  if (post) argv.push("-s", join(import.meta.dir, "post.lua"));
  argv.push(server.url + PATHS[scenario]);
  const run = Bun.spawnSync(argv);
  const text = run.stdout.toString();
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

if (Bun.spawnSync(["which", "wrk"]).exitCode !== 0) {
  console.error("bench needs wrk: install it with `apt-get install wrk` (Debian/Ubuntu) or `brew install wrk`");
  process.exit(1);
}

const dataFolder = join(ROOT, "data", "bench");
mkdirSync(dataFolder, { recursive: true });
const millionFile = join(dataFolder, "million.json");
if (SCENARIOS.includes("sold-1M")) writeDataFile(millionFile, MILLION);

/**
 * Which targets run each scenario, in interleaving order. On Node, "direct" is the core behind
 * minimal node:http code: project/direct is the Node adapter's own cost.
 */
const PLAN: Record<Scenario, Kind[]> = {
  list: ["limit", "hono", "direct", "project"],
  get: ["limit", "hono", "direct", "project"],
  "sold-1k": ["limit", "hono", "project"],
  "sold-1M": ["limit", "hono", "project-file"],
  create: ["limit", "hono", "direct", "project", "project-file"],
  "create-c64": ["project", "project-file"],
};
const planFor = (runtime: Runtime, scenario: Scenario): Kind[] =>
  PLAN[scenario].filter((kind) => kind !== "direct" || runtime === "node");

const results = new Map<string, Measure[]>();
const key = (runtime: Runtime, scenario: Scenario, kind: Kind) => `${runtime} ${scenario} ${kind}`;
const versions: Record<string, string> = {
  bun: Bun.version,
  deno: Bun.spawnSync([join(BIN, "deno"), "--version"]).stdout.toString().split("\n")[0]!.replace("deno ", ""),
  node: Bun.spawnSync(["node", "--version"]).stdout.toString().trim(),
  wrk: Bun.spawnSync(["wrk", "--version"]).stdout.toString().split(" ")[1] ?? "?",
};
console.log(`HTTP benchmark ${new Date().toISOString()}: ${SECONDS}s per run, ${ROUNDS} rounds, versions ${JSON.stringify(versions)}`);

for (const runtime of RUNTIMES) {
  // Reads, writes and the million-pet store each get their own servers, so creates never change
  // what the read scenarios see.
  const servers = new Map<string, Server>();
  const serverFor = async (scenario: Scenario, kind: Kind): Promise<Server> => {
    const role = scenario === "sold-1M" ? "million" : scenario.startsWith("create") ? "write" : "read";
    const name = `${role} ${kind}`;
    let server = servers.get(name);
    if (server === undefined) {
      const pets = role === "million" ? MILLION : 1000;
      const dataFile = kind !== "project-file" ? undefined : role === "million" ? millionFile : join(dataFolder, `${runtime}-write.json`);
      if (dataFile !== undefined && role === "write") writeDataFile(dataFile, 1000);
      server = await start(runtime, kind, pets, dataFile);
      servers.set(name, server);
      measure(server, scenario, 1); // warm-up
    }
    return server;
  };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of SCENARIOS) {
      for (const kind of planFor(runtime, scenario)) {
        const result = measure(await serverFor(scenario, kind), scenario, SECONDS);
        const list = results.get(key(runtime, scenario, kind)) ?? [];
        list.push(result);
        results.set(key(runtime, scenario, kind), list);
        console.log(`${runtime} round ${round} ${scenario} ${kind}: ${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`);
      }
    }
  }
  for (const server of servers.values()) server.stop();
}

const table: string[] = [
  "| runtime | scenario | limit req/s | hono req/s | direct req/s | project req/s | project p50 / p99 ms | project RSS MiB | project/limit | project/hono | project/direct |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
];
const mid = (runtime: Runtime, scenario: Scenario, kind: Kind, field: keyof Measure) =>
  median((results.get(key(runtime, scenario, kind)) ?? []).map((m) => m[field]));
for (const runtime of RUNTIMES) {
  for (const scenario of SCENARIOS) {
    const projects = PLAN[scenario].filter((kind) => kind.startsWith("project"));
    for (const project of projects) {
      const plan = planFor(runtime, scenario);
      const limit = plan.includes("limit") ? mid(runtime, scenario, "limit", "rps") : Number.NaN;
      const hono = plan.includes("hono") ? mid(runtime, scenario, "hono", "rps") : Number.NaN;
      const direct = plan.includes("direct") && project === "project" ? mid(runtime, scenario, "direct", "rps") : Number.NaN;
      const rps = mid(runtime, scenario, project, "rps");
      const label = project === "project-file" ? `${scenario} (file store)` : scenario === "create-c64" ? `${scenario} (memory store)` : scenario;
      const ratio = (value: number) => (Number.isNaN(value) ? "–" : (rps / value).toFixed(2));
      const count = (value: number) => (Number.isNaN(value) ? "–" : String(Math.round(value)));
      table.push(
        `| ${runtime} | ${label} | ${count(limit)} | ${count(hono)} | ${count(direct)} | ${count(rps)} | ${mid(runtime, scenario, project, "p50").toFixed(2)} / ${mid(runtime, scenario, project, "p99").toFixed(2)} | ${Math.round(mid(runtime, scenario, project, "rssMiB"))} | ${ratio(limit)} | ${ratio(hono)} | ${ratio(direct)} |`,
      );
    }
  }
}

/** Scale: the sold-filtered list's p50 latency with a million pets over that with a thousand. */
const measuredScale = SCENARIOS.includes("sold-1k") && SCENARIOS.includes("sold-1M");
const scale = (measuredScale ? RUNTIMES : []).map((runtime) => {
  const small = mid(runtime, "sold-1k", "project", "p50");
  const large = mid(runtime, "sold-1M", "project-file", "p50");
  return `- ${runtime}: sold list p50 ${large.toFixed(2)} ms with 1,000,000 pets / ${small.toFixed(2)} ms with 1,000 = ${(large / small).toFixed(2)}`;
});
const report = [
  "# Benchmark results",
  "",
  `${new Date().toISOString().slice(0, 10)}, on this project's 2-core machine (client and server share it).`,
  `Versions: Bun ${versions.bun}, Deno ${versions.deno}, Node ${versions.node}, wrk ${versions.wrk}.`,
  `Command: \`npm run bench\` (BENCH_SECONDS=${SECONDS}, BENCH_ROUNDS=${ROUNDS}); wrk -t1, 32 connections (64 for create-c64), keep-alive.`,
  "Medians over the rounds. Absolute req/s are noise on a shared 2-core machine; the ratios are the figures.",
  "`sold-1k`/`sold-1M`: `GET /v1/pets?status=sold&limit=20` with 1,000 / 1,000,000 pets stored, only the last 20 sold.",
  "",
  ...table,
  "",
  "Scale (target ≤ 1.2):",
  ...scale,
  "",
].join("\n");
/** The hand-written notes at the end of RESULTS.md (from this heading on), kept when the figures are replaced. */
const NOTES_HEADING = "## Where the time goes";
const resultsPath = join(import.meta.dir, "RESULTS.md");
const previous = existsSync(resultsPath) ? readFileSync(resultsPath, "utf8") : "";
const notes = previous.includes(NOTES_HEADING) ? previous.slice(previous.indexOf(NOTES_HEADING)) : "";
if (FULL_RUN) writeFileSync(resultsPath, notes === "" ? report : `${report}\n${notes}`);
console.log(`\n${[...table, "", ...scale].join("\n")}`);
