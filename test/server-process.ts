/**
 * @module
 * Starts the standalone server as a child process (the real `npm run` command, without npm in the
 * way of signals), reads the URL it prints, and stops it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import type { NodeLine } from "./node-lines.ts";
import { NODE_LINES, NODE_ON_PATH, nodeBinary } from "./node-lines.ts";
import { captureOutput } from "./output.ts";

/**
 * A runtime the standalone server runs on, named by its npm script; `deno-serve` is Deno with
 * `DENO_SERVER=Deno.serve` rather than its default `node:http`, and `node` the Node.js line on `PATH`
 * (`NODE_ON_PATH` under `npm test`).
 */
export type Runtime = "bun" | "deno" | "deno-serve" | "node";

/** `npm run start:node` on a Node.js line of `test/node-lines.ts`, by its path, whatever `node` is on `PATH`. */
export type NodeLineRuntime = `node-${NodeLine}`;

/** The Node.js lines besides the one on `PATH` (`node`), as runtimes: the HTTP and tracing suites run on them too. */
export const OTHER_NODE_LINES: readonly NodeLineRuntime[] = NODE_LINES.filter((line) => line !== NODE_ON_PATH).map((line) => `node-${line}` as const);

const SCRIPTS: Record<Runtime, string> = { bun: "start", deno: "start:deno", "deno-serve": "start:deno", node: "start:node" };
const RUNTIME_ENV: Partial<Record<Runtime, Record<string, string>>> = { "deno-serve": { DENO_SERVER: "Deno.serve" } };
const scripts: Record<string, string | undefined> = packageJson.scripts;

/** A running server process; `await using` it to have it killed at the end of the block if it still runs. */
export interface ServerProcess extends AsyncDisposable {
  /** The base URL it printed, e.g. `http://127.0.0.1:40123/v1`. */
  readonly url: string;
  /** Everything it printed to stdout and stderr so far. */
  output(): string;
  /** What it printed to stdout alone so far. */
  stdout(): string;
  /** Sends a signal and resolves with the exit code once the process has ended. */
  stop(signal?: NodeJS.Signals): Promise<number>;
  /** Sends a signal and returns at once (SIGHUP: read the key file again). */
  signal(name: NodeJS.Signals): void;
  /** Resolves with the exit code once the process has ended by itself. */
  readonly exited: Promise<number>;
}

/** Runs a command as user and group `nobody`, with no supplementary groups. */
export const UNPRIVILEGED: readonly string[] = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];

/** Runs a command as root without the capability to take ports below 1024. */
const WITHOUT_LOW_PORTS: readonly string[] = ["setpriv", "--bounding-set=-net_bind_service", "--inh-caps=-net_bind_service"];

/** How long a server may take to print its URL. */
const START_TIMEOUT_MS = 15_000;

/** Extra ways to start a server. */
export interface StartOptions {
  /** Caps the size of any file the server writes (`ulimit -f`), to stand in for a full disk. */
  readonly maxFileKiB?: number;
  /**
   * Runs the server as `npm start` does, under a shell in a process group of its own; `stop` then
   * signals the whole group, as a supervisor or the OOM killer does.
   */
  readonly processGroup?: boolean;
  /** Caps how many files and sockets the server may hold open at once (`ulimit -n`). */
  readonly maxOpenFiles?: number;
  /** A module the runtime loads before the server (`--preload` on Bun and Deno, `--import` on Node). */
  readonly preload?: string;
  /**
   * Runs the server in a pid namespace of its own, as a container does (`unshare`; there the server
   * is pid 2, under a shell); `stop` then signals the whole process group.
   */
  readonly ownPidNamespace?: boolean;
  /**
   * A shell command that reads the server's stdout (and its stderr too with `stderrToo`) in place of
   * the test, e.g. `sed -u '/listening on/q'`, a reader that goes away; what it prints is the output.
   */
  readonly outputReader?: { readonly command: string; readonly stderrToo?: boolean };
  /**
   * Runs the server unable to take ports below 1024: when the tests run as root, as root without the
   * one capability that lets it (CAP_NET_BIND_SERVICE), so it still reads a checkout only its owner
   * may read (a `git clone` into `mktemp -d` or `/root`), where user `nobody` could not.
   */
  readonly withoutLowPorts?: boolean;
  /** The folder of another checkout of the code to run the server from (`older-checkout.ts`), as an upgrade runs two releases. */
  readonly checkout?: string;
}

/** Starts the server for `runtime` with the given environment (PORT defaults to 0). */
export async function startServer(runtime: Runtime | NodeLineRuntime, env: Record<string, string>, options: StartOptions = {}): Promise<ServerProcess> {
  if (options.withoutLowPorts === true) refuseOpenLowPorts();
  const line = NODE_LINES.find((each) => runtime === `node-${each}`);
  const scripted: Runtime = line === undefined ? (runtime as Runtime) : "node";
  // The script's `exec` hands npm's signals to the server (npm-signals.test.ts); here it is not needed.
  const [command = "", ...args] = (scripts[SCRIPTS[scripted]] ?? "").replace(/^exec /, "").split(" ");
  const local = `node_modules/.bin/${command}`;
  const binary = line === undefined ? (existsSync(local) ? local : command) : nodeBinary(line);
  const script = join(options.checkout ?? "", args.pop() ?? "");
  const preload = options.preload === undefined ? [] : [scripted === "node" ? "--import" : "--preload", options.preload];
  const argv = [binary, ...args, ...preload, script];
  // Ignoring SIGXFSZ makes writes past the cap fail with EFBIG instead of killing the process.
  const limits = [
    ...(options.maxFileKiB === undefined ? [] : [`trap '' XFSZ; ulimit -f ${options.maxFileKiB}`]),
    ...(options.maxOpenFiles === undefined ? [] : [`ulimit -n ${options.maxOpenFiles}`]),
  ];
  // The shell's stdout becomes a pipe to the reader before it becomes the server: signals reach the server itself.
  const reader = options.outputReader === undefined ? [] : [`exec > >(${options.outputReader.command})${options.outputReader.stderrToo === true ? " 2>&1" : ""}`];
  const shell = [...limits, ...reader];
  const limited = shell.length === 0 ? argv : ["bash", "-c", `${shell.join("; ")}; exec "$@"`, "bash", ...argv];
  // `; exit` keeps the shell from exec'ing the server, so it stays its parent, as under npm.
  const inNamespace = options.ownPidNamespace === true
    ? ["unshare", "--pid", "--fork", "--mount-proc", ...(process.getuid?.() === 0 ? [] : ["--map-root-user"])]
    : [];
  const inGroup = options.processGroup === true || options.ownPidNamespace === true;
  const noLowPorts = options.withoutLowPorts === true && process.getuid?.() === 0 ? [...WITHOUT_LOW_PORTS] : [];
  const grouped = inGroup ? ["setsid", ...inNamespace, "sh", "-c", '"$@"; exit $?', "sh", ...limited] : limited;
  const child = Bun.spawn([...noLowPorts, ...grouped], {
    env: { ...process.env, PORT: "0", ...RUNTIME_ENV[scripted], ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = captureOutput(child);
  // The whole group where there is one: a shell's child would outlive a signal to the shell alone.
  const signal = (name: NodeJS.Signals) => {
    try {
      if (inGroup) process.kill(-child.pid, name);
      else child.kill(name);
    } catch {
      // Gone already.
    }
  };
  const stop = async (name: NodeJS.Signals = "SIGTERM") => {
    signal(name);
    const code = await child.exited;
    // The shell exits first: the server under it may still be dying, holding its lock, on a busy machine.
    if (inGroup) await groupGone(child.pid);
    return code;
  };
  // Whatever a test does, its server ends: at the end of its `await using` block, or when the run ends.
  const dispose = async () => {
    running.delete(dispose);
    // Only while the child runs: its pid (and group id) may be another process's once it has been reaped.
    // In a group the shell waits for the server, so a shell that has ended leaves none behind.
    if (child.exitCode === null && child.signalCode === null) signal("SIGKILL");
    await child.exited;
  };
  running.add(dispose);
  void child.exited.then(() => running.delete(dispose));
  const started = Date.now();
  for (;;) {
    // As text, or inside a JSON line with LOG_FORMAT=json.
    const url = /listening on (http:\/\/[^\s"]+)/.exec(output())?.[1];
    if (url !== undefined) return { url, output, stdout: output.stdout, stop, signal, exited: child.exited, [Symbol.asyncDispose]: dispose };
    if (child.exitCode !== null || Date.now() - started > START_TIMEOUT_MS) {
      await dispose();
      throw new Error(`${runtime} server did not start (exit code ${await child.exited}):\n${output()}`);
    }
    await Bun.sleep(20);
  }
}

/**
 * Throws, naming the setting, where every user may take ports below 1024 (Docker sets
 * `net.ipv4.ip_unprivileged_port_start` to 0 in its containers): no server could be refused one there.
 */
function refuseOpenLowPorts(): void {
  const first = Number(readFileSync("/proc/sys/net/ipv4/ip_unprivileged_port_start", "utf8"));
  if (first > 80) return;
  throw new Error(`Every user may take port 80 on this machine (net.ipv4.ip_unprivileged_port_start is ${first}): run the tests where it is above 80, the kernel's default 1024 (docker run --sysctl net.ipv4.ip_unprivileged_port_start=1024)`);
}

/** What ends each server still running. */
const running = new Set<() => Promise<void>>();

/** Ends every server a test started and left running (the suite's preload calls it once all files have run). */
export async function stopLeftoverServers(): Promise<void> {
  await Promise.all([...running].map((dispose) => dispose()));
}

/** Waits, up to 10 s, until no process of the group `id` is left alive (a zombie holds no lock), as a supervisor waits before a restart. */
async function groupGone(id: number): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 10_000; await Bun.sleep(10)) {
    if (!readdirSync("/proc").some((pid) => /^\d+$/.test(pid) && aliveInGroup(pid, id))) return;
  }
}

/** Whether process `pid` is in group `id` and not a zombie, from `/proc/<pid>/stat` ("pid (comm) state ppid pgrp …"). */
function aliveInGroup(pid: string, id: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(group) === id && state !== "Z";
  } catch {
    return false;
  }
}
