/**
 * @module
 * The benchmark's targets: which run in each scenario on each runtime, and how each is started on
 * a free port and filled with the pets every target starts with.
 */
import { existsSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import packageJson from "../package.json" with { type: "json" };
import { KEY, seedPet } from "./fixtures.ts";
import type { Sink } from "./otlp-sink-process.ts";
import { withSink } from "./otlp-sink-process.ts";

/** A runtime the benchmark runs on. */
export type Runtime = "bun" | "deno" | "node";
/**
 * A server measured: the limit, a framework peer (as its users get it, with the request log they
 * turn on: `-log`, or traced with its own OpenTelemetry package: `-traced`), the
 * core behind minimal code, or the project: as `npm start` runs it (`project`: default settings, the
 * access log on, written to a file), with one setting changed (`SETTINGS`), or an earlier version of
 * it (`project-before`).
 */
export type Kind =
  | "limit" | "hono" | "hono-log" | "hono-traced" | "elysia" | "elysia-log" | "elysia-traced" | "fastify" | "fastify-log" | "fastify-traced" | "direct"
  | "project" | "project-deno-serve" | "project-file" | "project-log-off" | "project-traced" | "project-before"
  | "project-cors" | "project-rate-limit" | "project-metrics";
/** A measured request, and the store behind it. */
export type Scenario = "list" | "get" | "create" | "sold-1k" | "sold-1M" | "create-c64";

/**
 * Rows a run may add to list, get and create (`BENCH_EXTRA`, comma-separated): `before` (the project
 * as it was, from a checkout named by `BENCH_BASELINE`), and on Bun and Node `cors`, `rate-limit`, `metrics`.
 */
const EXTRA = (process.env.BENCH_EXTRA ?? "").split(",").filter((name) => name !== "").map((name) => `project-${name}` as Kind);

/** Every request traced and exported to the OTLP sink the benchmark runs (`otlp-sink-process.ts`), the default sampler recording all. */
const TRACED = { OTEL_EXPORTER_OTLP_ENDPOINT: "sink" };

/** The settings that set a target apart from its default: the project's from what `npm start` runs, a peer's log or traces. */
const SETTINGS: Partial<Record<Kind, Record<string, string>>> = {
  "hono-log": { PEER_LOG: "on" },
  "elysia-log": { PEER_LOG: "on" },
  "fastify-log": { PEER_LOG: "on" },
  "hono-traced": TRACED,
  "elysia-traced": TRACED,
  "fastify-traced": TRACED,
  "project-traced": TRACED,
  "project-file": { STORE: "file" },
  "project-deno-serve": { DENO_SERVER: "Deno.serve" },
  "project-log-off": { LOG: "off" },
  "project-cors": { CORS_ORIGINS: "http://localhost:3000" },
  // A limit no request of the benchmark reaches: what counting costs.
  "project-rate-limit": { RATE_LIMIT: "1000000/s" },
  "project-metrics": { METRICS_PORT: "0" },
};

/** The repository's root folder. */
export const ROOT: string = join(import.meta.dir, "..");
/** Where the project's own tools (bun, deno) are installed. */
export const BIN: string = join(ROOT, "node_modules", ".bin");
/** The loader `npm run start:node` imports, read from that script, so Node's targets run as users run them. */
const NODE_LOADER = pathToFileURL(join(ROOT, /--import (\S+)/.exec(packageJson.scripts["start:node"])![1]!)).href;

/**
 * Which targets run each scenario, in interleaving order. On Node, "direct" is the core behind
 * minimal node:http code: project/direct is the Node adapter's own cost.
 */
export const PLAN: Record<Scenario, Kind[]> = {
  list: ["limit", "hono", "hono-log", "hono-traced", "elysia", "elysia-log", "elysia-traced", "fastify", "fastify-log", "fastify-traced", "direct", "project", "project-log-off", "project-traced", "project-deno-serve", ...EXTRA],
  get: ["limit", "hono", "hono-log", "hono-traced", "elysia", "elysia-log", "elysia-traced", "fastify", "fastify-log", "fastify-traced", "direct", "project", "project-log-off", "project-traced", "project-deno-serve", ...EXTRA],
  "sold-1k": ["limit", "hono", "elysia", "fastify", "project"],
  "sold-1M": ["limit", "hono", "elysia", "fastify", "project-file"],
  create: ["limit", "hono", "hono-log", "hono-traced", "elysia", "elysia-log", "elysia-traced", "fastify", "fastify-log", "fastify-traced", "direct", "project", "project-log-off", "project-traced", "project-deno-serve", "project-file", ...EXTRA],
  "create-c64": ["elysia", "fastify", "project", "project-file"],
};
/** Targets that exist on one runtime only. */
const ONLY_ON: Partial<Record<Kind, Runtime>> = {
  direct: "node",
  elysia: "bun",
  "elysia-log": "bun",
  "elysia-traced": "bun",
  fastify: "node",
  "fastify-log": "node",
  "fastify-traced": "node",
  "project-deno-serve": "deno",
};
/** The framework peer each runtime is held against, beside Hono. */
export const PEER: Record<Runtime, Kind | undefined> = { bun: "elysia", deno: undefined, node: "fastify" };
/** The same peer with the request log its users turn on, to hold the default's log against (`PEER_LOG=on`). */
export const PEER_WITH_LOG: Record<Runtime, Kind | undefined> = { bun: "elysia-log", deno: undefined, node: "fastify-log" };
/** The same peer traced with its own OpenTelemetry package. */
export const PEER_TRACED: Record<Runtime, Kind | undefined> = { bun: "elysia-traced", deno: undefined, node: "fastify-traced" };
/** Rows measured on Bun and Node only, where the project is held against a framework peer. */
const PEER_RUNTIMES_ONLY: ReadonlySet<Kind> = new Set(["project-cors", "project-rate-limit", "project-metrics"]);
/** The targets of a scenario on a runtime, in interleaving order. */
export const planFor = (runtime: Runtime, scenario: Scenario): Kind[] =>
  PLAN[scenario].filter((kind) => (ONLY_ON[kind] ?? runtime) === runtime && !(runtime === "deno" && PEER_RUNTIMES_ONLY.has(kind)));

/** Reads, writes and the million-pet store each get their own servers, so creates never change what reads see. */
export type Role = "read" | "write" | "million";
/** Which servers a scenario is measured on. */
export const roleOf = (scenario: Scenario): Role => (scenario === "sold-1M" ? "million" : scenario.startsWith("create") ? "write" : "read");

/** A started target. */
export interface Server {
  readonly url: string;
  readonly pid: number;
  stop(): void;
}

/** The argv that runs a TypeScript entry point on a runtime, from the entry's working folder (Node's through the `--import` loader given). */
export function runArgv(runtime: Runtime, entry: string, nodeLoader: string = NODE_LOADER): string[] {
  if (runtime === "bun") return [join(BIN, "bun"), entry];
  if (runtime === "deno") return [join(BIN, "deno"), "run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-run", entry];
  return ["node", "--import", nodeLoader, entry];
}

/** The command that starts a target on a runtime, and its working folder. */
function command(runtime: Runtime, kind: Kind): { argv: string[]; cwd: string } {
  if (kind.startsWith("project")) {
    const cwd = kind === "project-before" ? baseline() : ROOT;
    // Earlier versions kept the start scripts beside the adapters.
    const entry = existsSync(join(cwd, "adapters", "server", `start-${runtime}.ts`)) ? `adapters/server/start-${runtime}.ts` : `adapters/start-${runtime}.ts`;
    return { argv: runArgv(runtime, entry), cwd };
  }
  // A peer with its log or traced is the peer's own server with PEER_LOG=on or an OTLP endpoint.
  return { argv: runArgv(runtime, `servers/${kind.replace(/-(log|traced)$/, "")}-${runtime}.ts`), cwd: import.meta.dir };
}

/** The checkout `project-before` runs from. */
function baseline(): string {
  const folder = process.env.BENCH_BASELINE;
  if (folder === undefined || !existsSync(join(folder, "package.json"))) throw new Error("BENCH_EXTRA=before needs BENCH_BASELINE, a checkout of the version to compare with (its node_modules installed)");
  return folder;
}

/**
 * Starts a target on a free port, holding `pets` pets (from `dataFile` when given), and waits until
 * it listens. The project runs with the settings `npm start` uses but for the store (memory unless
 * the file store is measured) and the row's own; its output goes to a file, as a service manager
 * would take it, so the access log it writes by default is measured with it. A traced target exports
 * to `sink`.
 */
export async function start(runtime: Runtime, kind: Kind, pets: number, dataFile?: string, outputFile?: string, sink?: Sink): Promise<Server> {
  const { argv, cwd } = command(runtime, kind);
  const env: Record<string, string> = { ...process.env, PORT: "0", API_KEYS: KEY, PETS: String(pets), STORE: "memory", ...withSink(SETTINGS[kind] ?? {}, sink) } as Record<string, string>;
  if (dataFile !== undefined) env["DATA_FILE"] = dataFile;
  const output = outputFile ?? join(ROOT, "data", "bench", `${runtime}-${kind}.log`);
  const child = Bun.spawn(argv, { cwd, env, stdout: openSync(output, "w"), stderr: "inherit" });
  const started = Date.now();
  while (!/listening on (\S+)/.test(readFileSync(output, "utf8"))) {
    if (child.exitCode !== null || Date.now() - started > 60_000) throw new Error(`${runtime} ${kind} did not start: ${readFileSync(output, "utf8")}`);
    await Bun.sleep(50);
  }
  const url = /listening on (\S+)/.exec(readFileSync(output, "utf8"))![1]!;
  if ((kind.startsWith("project") || kind === "direct") && dataFile === undefined) await seed(url, pets);
  return { url, pid: child.pid, stop: () => child.kill("SIGKILL") };
}

/** Creates the seed pets one by one, so ids and names line up with the other targets. */
export async function seed(url: string, count: number): Promise<void> {
  for (let id = 1; id <= count; id++) {
    const response = await fetch(`${url}/pets`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify(seedPet(id, count)),
    });
    if (response.status !== 201) throw new Error(`seeding answered ${response.status}`);
  }
}

/** Writes a data file of the JSON-file store holding the `count` seed pets. */
export function writeDataFile(path: string, count: number): void {
  const lines = ['{"format":"animal-store-pets","version":1}'];
  for (let id = 1; id <= count; id++) lines.push(JSON.stringify({ id, ...seedPet(id, count) }));
  writeFileSync(path, `${lines.join("\n")}\n`);
  // The mark an earlier run's creates left beside it would number this run's creates above them.
  rmSync(`${path}.last-id`, { force: true });
}

