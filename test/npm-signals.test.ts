/**
 * @module
 * Stopping the server through npm's own pid, as a supervisor does with the process it started:
 * `npm start`, `npm run start:deno` and `npm run start:node` hand SIGTERM and SIGINT to the server,
 * which prints `stopped`, frees the port, and npm exits 0.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { captureOutput } from "./output.ts";
import { tempDataFile } from "./temp.ts";

const SCRIPTS = ["start", "start:deno", "start:node"] as const;
const SIGNALS = ["SIGTERM", "SIGINT"] as const;
const CASES = SCRIPTS.flatMap((script) => SIGNALS.map((signal) => [script, signal] as const));

/** How long npm and the server may take to print the URL, and then to exit once signalled. */
const START_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT_MS = 10_000;

/** Whether a listener can bind `port` on loopback now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** Resolves with `value` after `ms`, to race a promise against. */
function after<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

/** What a run of npm came to: its exit code, its output, its stdout alone, and the port the server took. */
interface NpmRun {
  readonly code: number | string;
  readonly output: string;
  readonly stdout: string;
  readonly port: number;
}

/** Runs `npm <args>` with `env` until the server listens, sends `signal` to npm's own pid, and waits for npm to end. */
async function npmUntilSignal(args: readonly string[], env: Record<string, string>, signal: NodeJS.Signals): Promise<NpmRun> {
  // A session of its own (`setsid` execs npm, so npm keeps the pid): whatever happens, the finally
  // below kills npm and everything it started, a server npm left behind included.
  const npm = Bun.spawn(["setsid", "npm", ...args], {
    env: { ...process.env, PORT: "0", API_KEYS: "k", DATA_FILE: tempDataFile(), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = captureOutput(npm);
  try {
    const started = Date.now();
    let port: number | undefined;
    while (port === undefined && npm.exitCode === null && Date.now() - started < START_TIMEOUT_MS) {
      const found = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(output())?.[1];
      port = found === undefined ? undefined : Number(found);
      await Bun.sleep(20);
    }
    if (port === undefined) throw new Error(`npm ${args.join(" ")} did not start:\n${output()}`);
    process.kill(npm.pid, signal);
    const code = await Promise.race([npm.exited, after(EXIT_TIMEOUT_MS, "still running")]);
    return { code, output: output(), stdout: output.stdout(), port };
  } finally {
    try {
      process.kill(-npm.pid, "SIGKILL");
    } catch {
      // The group is gone already: nothing was left behind.
    }
    await npm.exited;
  }
}

test.each(CASES)("npm run %s stopped with %s through npm's pid prints stopped, exits 0 and frees the port", async (script, signal) => {
  const run = await npmUntilSignal(["run", "--silent", script], {}, signal);
  expect({ code: run.code, output: run.output }).toEqual({ code: 0, output: expect.stringContaining("stopped") });
  expect(await portIsFree(run.port)).toBe(true);
}, START_TIMEOUT_MS + EXIT_TIMEOUT_MS + 5_000);

test("with LOG_FORMAT=json, `npm start --silent` writes JSON Lines only to stdout; without --silent npm writes its banner there first, as docs/running.md says", async () => {
  const silent = await npmUntilSignal(["start", "--silent"], { LOG_FORMAT: "json" }, "SIGTERM");
  const lines = silent.stdout.trimEnd().split("\n");
  expect(lines.length).toBeGreaterThanOrEqual(3);
  for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  const plain = await npmUntilSignal(["start"], { LOG_FORMAT: "json" }, "SIGTERM");
  expect(plain.stdout.trimStart()).toStartWith("> animal-store@");
  expect(readFileSync("docs/running.md", "utf8")).toContain("`npm start --silent`");
}, 2 * (START_TIMEOUT_MS + EXIT_TIMEOUT_MS) + 5_000);
