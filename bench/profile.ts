/**
 * @module
 * Where one cell's time goes: the standalone server of a runtime as `npm start` runs it (access log on,
 * written to a file; the memory store with 1,000 pets), pinned to one core and loaded by wrk on the
 * other. Run once as it is, for its rate, its CPU time per request and, where `perf` can sample, that
 * time by where it ran (the kernel, the runtime's native code, JIT-compiled JavaScript); then once
 * with the runtime's CPU profiler on (Bun's `--cpu-prof`, V8's inspector on Node and Deno), for the
 * main thread's functions by their share of its samples. The profile is kept in `data/bench/profiles/`.
 *
 * Run from the repository root:
 *   bun bench/profile.ts <bun|deno|node> <list|get|create> [NAME=value,...] [checkout | peer]
 * e.g. `bun bench/profile.ts node create LOG=off`; `peer` profiles Elysia or Fastify instead
 * (`PEER_LOG=on peer` with its log). Settings: PROFILE_SECONDS (8). Needs Linux (`taskset`, `/proc`),
 * two cores and wrk; `perf` (Debian's linux-perf) for the split by place.
 */
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { KEY } from "./fixtures.ts";
import type { PinnedServer } from "./pinned.ts";
import { cpuMicros, loadPinned, parseSettings, PINNED_PATHS, startPinned } from "./pinned.ts";
import type { CpuProfile, FunctionTime, Place } from "./profile-summary.ts";
import { cpuByPlace, selfTimes, timeByOrigin } from "./profile-summary.ts";
import type { Runtime } from "./targets.ts";
import { PEER, ROOT, runArgv } from "./targets.ts";

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 8);
/** Microseconds between samples. */
const INTERVAL = 500;
const TOP = 15;

const [runtime, scenario, ...rest] = process.argv.slice(2);
if ((runtime !== "bun" && runtime !== "deno" && runtime !== "node") || scenario === undefined || PINNED_PATHS[scenario] === undefined) {
  console.error("usage: bun bench/profile.ts <bun|deno|node> <list|get|create> [NAME=value,...] [checkout | peer]");
  process.exit(2);
}
const settingsText = rest.find((arg) => arg.includes("=")) ?? "";
const settings = parseSettings(settingsText);
const place = rest.find((arg) => !arg.includes("="));
const peer = place === "peer" ? PEER[runtime] : undefined;
if (place === "peer" && peer === undefined) {
  console.error(`${runtime} has no peer to profile`);
  process.exit(2);
}
const checkout = resolve(place === undefined || peer !== undefined ? ROOT : place);
/** What runs: the checkout's standalone server, or the peer from the benchmark's servers. */
const entry = peer === undefined ? `adapters/server/start-${runtime}.ts` : join(import.meta.dir, "servers", `${peer}-${runtime}.ts`);
const folder = join(ROOT, "data", "bench", "profiles");
const name = `${runtime}-${scenario}${peer === undefined ? "" : `-${peer}`}${settingsText === "" ? "" : `-${settingsText.replace(/[^\w=-]+/g, "_")}`}`;
mkdirSync(folder, { recursive: true });

/**
 * The server's argv, V8 told to write the perf map that names its JIT-compiled code (Bun writes one
 * by itself); the small log V8 then keeps goes beside the profiles, not into the working folder.
 */
function plainArgv(runtime: Runtime): string[] {
  const [binary, ...args] = runArgv(runtime, entry);
  const v8Flags = ["--perf-basic-prof", "--no-logfile-per-isolate", `--logfile=${join(folder, `${name}.v8.log`)}`];
  if (runtime === "deno") return [binary!, args[0]!, `--v8-flags=${v8Flags.join(",")}`, ...args.slice(1)];
  return runtime === "node" ? [binary!, ...v8Flags, ...args] : [binary!, ...args];
}

/** The server's argv with its runtime's profiler on: Bun's `--cpu-prof`, V8's inspector on Node and Deno. */
function profiledArgv(runtime: Runtime, profileDir: string): string[] {
  const [binary, ...args] = runArgv(runtime, entry);
  if (runtime === "deno") return [binary!, args[0]!, "--inspect=127.0.0.1:0", ...args.slice(1)];
  if (runtime === "node") return [binary!, "--inspect=127.0.0.1:0", ...args];
  return [binary!, "--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-interval=${INTERVAL}`, ...args];
}

/**
 * A profiler driven through the V8 inspector protocol, started and stopped around the load (Deno has
 * no `--cpu-prof`, and Node's covers the whole life of the process, start-up and stop included).
 */
async function startInspectorProfile(stderr: ReadableStream<Uint8Array>): Promise<() => Promise<CpuProfile>> {
  const reader = stderr.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let address: string | undefined;
  while ((address = /Debugger listening on (ws:\S+)/.exec(text)?.[1]) === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`no inspector address in: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  // Keep reading, so the server never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read()).done);
  })();
  const socket = new WebSocket(address);
  await new Promise((opened, failed) => ((socket.onopen = opened), (socket.onerror = failed)));
  const waiting = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  };
  let lastId = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((answered) => {
      waiting.set(++lastId, answered);
      socket.send(JSON.stringify({ id: lastId, method, params }));
    });
  await call("Profiler.enable");
  await call("Profiler.setSamplingInterval", { interval: INTERVAL });
  await call("Profiler.start");
  return async () => {
    const { profile } = (await call("Profiler.stop")) as { profile: CpuProfile };
    socket.close();
    return profile;
  };
}

/** Whether `perf` is there and may sample here. */
function perfWorks(): boolean {
  return Bun.spawnSync(["perf", "stat", "-e", "cpu-clock", "true"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
}

/** The process's CPU share by place while `seconds` pass, or `undefined` without perf. */
async function perfShares(pid: number, seconds: number, binary: string): Promise<Record<Place, number> | undefined> {
  if (!perfWorks()) return undefined;
  const data = join(folder, `${name}.perf.data`);
  await Bun.spawn(["perf", "record", "-q", "-e", "cpu-clock", "-F", "1000", "-p", String(pid), "-o", data, "--", "sleep", String(seconds)], { stdout: "ignore", stderr: "ignore" }).exited;
  const report = Bun.spawnSync(["perf", "report", "-i", data, "--sort", "dso", "--stdio"], { stderr: "ignore" }).stdout.toString();
  return cpuByPlace(report, binary);
}

const env = { ...process.env, PORT: "0", API_KEYS: KEY, STORE: "memory", PETS: "1000", ...settings };
// The runtime's executable as perf names it (node_modules/.bin/bun is a link to bun.exe).
const command = runArgv(runtime, entry)[0]!;
const binary = basename(realpathSync(Bun.which(command) ?? command));

/** Starts the server with `argv` pinned and seeded, loads it for 2 s to warm it, and hands it to `use`; always stops it. */
async function withServer<T>(argv: string[], stderr: "inherit" | "pipe", use: (server: PinnedServer) => Promise<T>): Promise<T> {
  // The peers hold their pets from the start (PETS); the project's server is given them.
  const server = await startPinned(argv, { cwd: peer === undefined ? checkout : import.meta.dir, env, output: join(folder, `${name}.log`), seed: peer === undefined, stderr });
  try {
    return await use(server);
  } finally {
    server.process.kill("SIGKILL");
  }
}

// First as it runs, without a profiler (which slows it): the rate, the CPU and where it ran.
const plain = await withServer(plainArgv(runtime), "inherit", async (server) => {
  await loadPinned(server.url, scenario, 2);
  const cpuBefore = cpuMicros(server.process.pid);
  const [load, places] = await Promise.all([loadPinned(server.url, scenario, SECONDS), perfShares(server.process.pid, SECONDS, binary)]);
  return { load, places, cpuPerRequest: (cpuMicros(server.process.pid) - cpuBefore) / load.requests };
});

// Then with the profiler on, for the main thread's functions.
const profileDir = join(folder, `${name}.tmp`);
rmSync(profileDir, { recursive: true, force: true });
const inspected = runtime !== "bun";
const times = await withServer(profiledArgv(runtime, profileDir), inspected ? "pipe" : "inherit", async (server) => {
  const stopInspector = inspected ? await startInspectorProfile(server.process.stderr as ReadableStream<Uint8Array>) : undefined;
  await loadPinned(server.url, scenario, 2);
  const loadStarted = performance.now();
  await loadPinned(server.url, scenario, SECONDS);
  const loadEnded = performance.now();
  const stopped = await stopInspector?.();
  server.process.kill("SIGINT");
  await server.process.exited;
  const exited = performance.now();
  // Bun's --cpu-prof covers the whole life of the process and ends at its exit: the load's window is
  // found back from the end. The inspector's profile covers the load and a little after.
  const profile = stopped ?? (JSON.parse(readFileSync(join(profileDir, readdirSync(profileDir)[0]!), "utf8")) as CpuProfile);
  rmSync(profileDir, { recursive: true, force: true });
  await Bun.write(join(folder, `${name}.cpuprofile`), JSON.stringify(profile));
  const to = profile.endTime - (stopped === undefined ? (exited - loadEnded) * 1000 : 0);
  const from = stopped === undefined ? to - (loadEnded - loadStarted) * 1000 : profile.startTime;
  return selfTimes(profile, from, to, checkout);
});
report(plain.load.rate, plain.cpuPerRequest, plain.places, times);

/**
 * Prints what the runs found: the rate and CPU a request, that CPU by place, and the shares of the
 * main thread's samples (a profiler slows what it samples, so shares, not µs, are its figures).
 */
function report(rate: number, cpuPerRequest: number, places: Record<Place, number> | undefined, times: readonly FunctionTime[]): void {
  const total = times.reduce((sum, time) => sum + time.micros, 0);
  const share = (micros: number) => `${((micros / total) * 100).toFixed(1)}%`;
  console.log(`${runtime} ${scenario}${settingsText === "" ? " (default settings)" : ` (${settingsText})`}, ${peer ?? checkout}: ${Math.round(rate).toLocaleString("en-US")} req/s pinned, ${cpuPerRequest.toFixed(1)} µs of CPU a request`);
  if (places !== undefined) {
    console.log(`  that CPU by where it ran (perf): ${Object.entries(places).filter(([, part]) => part >= 0.5).map(([place, part]) => `${place} ${((part * cpuPerRequest) / 100).toFixed(1)} µs`).join(", ")}`);
  }
  console.log(`  the main thread's samples (profiler on) by origin: ${Object.entries(timeByOrigin(times)).filter(([, micros]) => micros > 0).map(([origin, micros]) => `${origin} ${share(micros)}`).join(", ")}`);
  console.log("  its functions by self time:");
  for (const time of times.slice(0, TOP)) console.log(`    ${share(time.micros).padStart(6)}  ${time.origin.padEnd(17)} ${time.name}`);
}
