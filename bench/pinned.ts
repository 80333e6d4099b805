/**
 * @module
 * Servers pinned to one core and loaded by wrk pinned to the other, as `side-by-side.ts` and
 * `profile.ts` run them: the scheduler then gives every server the same core in every round, so what
 * a request costs it is what its rate and CPU time say (bench/RESULTS.md, "Issue 24, third session").
 * Needs Linux (`taskset`, `/proc`), two cores and wrk.
 */
import type { Subprocess } from "bun";
import { openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GET_ID, KEY } from "./fixtures.ts";
import { seed } from "./targets.ts";

/** What wrk asks for in each scenario, under the base URL. */
export const PINNED_PATHS: Record<string, string> = { list: "/pets?limit=20", get: `/pets/${GET_ID}`, create: "/pets" };

/** Settings written as `NAME=value,NAME=value` on the command line, as an environment's entries. */
export function parseSettings(text: string): Record<string, string> {
  return Object.fromEntries(text.split(",").filter((pair) => pair !== "").map((pair) => pair.split("=", 2) as [string, string]));
}

/** The core the servers share; the wrk processes run on the other. */
const SERVER_CORE = "1";
/** The core the load (wrk, and the OTLP sink) runs on. */
export const LOAD_CORE = "0";

/** A server started pinned. */
export interface PinnedServer {
  readonly url: string;
  readonly process: Subprocess<"ignore", number, "inherit" | "pipe">;
}

/** How to start a pinned server. */
export interface PinnedOptions {
  readonly cwd: string;
  readonly env: Record<string, string | undefined>;
  /** Where its stdout goes; it is read for the `listening on` line. */
  readonly output: string;
  /** Whether to create the 1,000 pets the benchmark's servers hold (the project's own servers start empty). */
  readonly seed: boolean;
  readonly stderr?: "inherit" | "pipe";
}

/** Starts `argv` on the server core, waits until it prints the URL it listens on, and seeds it when asked. */
export async function startPinned(argv: readonly string[], options: PinnedOptions): Promise<PinnedServer> {
  const child = Bun.spawn(["taskset", "-c", SERVER_CORE, ...argv], {
    cwd: options.cwd,
    env: options.env,
    stdout: openSync(options.output, "w"),
    stderr: options.stderr ?? "inherit",
  });
  const started = Date.now();
  let url: string | undefined;
  while ((url = /listening on (\S+)/.exec(readFileSync(options.output, "utf8"))?.[1]) === undefined) {
    if (child.exitCode !== null || Date.now() - started > 60_000) throw new Error(`${argv.join(" ")} did not start: ${readFileSync(options.output, "utf8")}`);
    await Bun.sleep(50);
  }
  if (options.seed) await seed(url, 1000);
  return { url, process: child };
}

/**
 * The CPU time a process has used, in microseconds, from `/proc/<pid>/stat` (user and system time of
 * all its threads, in clock ticks of 10 ms).
 */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // After the name: state is field 3, utime 14 and stime 15 (proc(5)).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** What one wrk run did. */
export interface Load {
  readonly requests: number;
  readonly rate: number;
}

/** Loads `url`'s scenario from the load core with one wrk (16 connections) for `seconds`. */
export async function loadPinned(url: string, scenario: string, seconds: number): Promise<Load> {
  const argv = ["taskset", "-c", LOAD_CORE, "wrk", "-t1", "-c16", `-d${seconds}s`, "-H", `Authorization: Bearer ${KEY}`];
  if (scenario === "create") argv.push("-s", join(import.meta.dir, "post.lua"));
  const text = await new Response(Bun.spawn([...argv, url + PINNED_PATHS[scenario]]).stdout).text();
  return {
    requests: Number(/(\d+) requests in/.exec(text)?.[1] ?? Number.NaN),
    rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN),
  };
}
