/**
 * @module
 * The benchmark's targets: which run in each scenario on each runtime, and how each is started on
 * a free port and filled with the pets every target starts with.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { KEY, seedPet } from "./fixtures.ts";

/** A runtime the benchmark runs on. */
export type Runtime = "bun" | "deno" | "node";
/**
 * A server measured: the limit, a framework peer, the core behind minimal code, or the project with one
 * of its stores; `project-deno-serve` is the project on Deno with `DENO_SERVER=Deno.serve`.
 */
export type Kind = "limit" | "hono" | "elysia" | "fastify" | "direct" | "project" | "project-deno-serve" | "project-file";
/** A measured request, and the store behind it. */
export type Scenario = "list" | "get" | "create" | "sold-1k" | "sold-1M" | "create-c64";

/** The repository's root folder. */
export const ROOT = join(import.meta.dir, "..");
/** Where the project's own tools (bun, deno) are installed. */
export const BIN = join(ROOT, "node_modules", ".bin");

/**
 * Which targets run each scenario, in interleaving order. On Node, "direct" is the core behind
 * minimal node:http code: project/direct is the Node adapter's own cost.
 */
export const PLAN: Record<Scenario, Kind[]> = {
  list: ["limit", "hono", "elysia", "fastify", "direct", "project", "project-deno-serve"],
  get: ["limit", "hono", "elysia", "fastify", "direct", "project", "project-deno-serve"],
  "sold-1k": ["limit", "hono", "elysia", "fastify", "project"],
  "sold-1M": ["limit", "hono", "elysia", "fastify", "project-file"],
  create: ["limit", "hono", "elysia", "fastify", "direct", "project", "project-deno-serve", "project-file"],
  "create-c64": ["elysia", "fastify", "project", "project-file"],
};
/** Targets that exist on one runtime only. */
const ONLY_ON: Partial<Record<Kind, Runtime>> = { direct: "node", elysia: "bun", fastify: "node", "project-deno-serve": "deno" };
/** The framework peer each runtime is held against, beside Hono. */
export const PEER: Record<Runtime, Kind | undefined> = { bun: "elysia", deno: undefined, node: "fastify" };
/** The targets of a scenario on a runtime, in interleaving order. */
export const planFor = (runtime: Runtime, scenario: Scenario): Kind[] =>
  PLAN[scenario].filter((kind) => (ONLY_ON[kind] ?? runtime) === runtime);

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

/** The command that starts a target on a runtime, and its working folder. */
function command(runtime: Runtime, kind: Kind): { argv: string[]; cwd: string } {
  const denoRun = [join(BIN, "deno"), "run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-run"];
  if (kind.startsWith("project")) {
    const entry = `adapters/server/start-${runtime}.ts`;
    if (runtime === "bun") return { argv: [join(BIN, "bun"), entry], cwd: ROOT };
    if (runtime === "deno") return { argv: [...denoRun, entry], cwd: ROOT };
    return { argv: ["node", "--import", "tsx", entry], cwd: ROOT };
  }
  const entry = `servers/${kind}-${runtime}.ts`;
  if (runtime === "bun") return { argv: [join(BIN, "bun"), entry], cwd: import.meta.dir };
  if (runtime === "deno") return { argv: [...denoRun, entry], cwd: import.meta.dir };
  return { argv: ["node", "--import", "tsx", entry], cwd: import.meta.dir };
}

/** Starts a target on a free port, holding `pets` pets (from `dataFile` when given), and waits until it listens. */
export async function start(runtime: Runtime, kind: Kind, pets: number, dataFile?: string): Promise<Server> {
  const { argv, cwd } = command(runtime, kind);
  // LOG=off: the raw servers and the peers log nothing either, so the comparison stays fair.
  const env: Record<string, string> = { ...process.env, PORT: "0", API_KEYS: KEY, PETS: String(pets), LOG: "off" } as Record<string, string>;
  env["STORE"] = kind === "project-file" ? "file" : "memory";
  if (kind === "project-deno-serve") env["DENO_SERVER"] = "Deno.serve";
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
  if ((kind.startsWith("project") || kind === "direct") && dataFile === undefined) await seed(url, pets);
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

/** Writes a data file of the JSON-file store holding the `count` seed pets. */
export function writeDataFile(path: string, count: number): void {
  const lines = ['{"format":"animal-store-pets","version":1}'];
  for (let id = 1; id <= count; id++) lines.push(JSON.stringify({ id, ...seedPet(id, count) }));
  writeFileSync(path, `${lines.join("\n")}\n`);
}

