/**
 * @module
 * Stopping the server through npm's own pid, as a supervisor does with the process it started:
 * `npm start`, `npm run start:deno` and `npm run start:node` hand SIGTERM and SIGINT to the server,
 * which prints `stopped`, frees the port, and npm exits 0.
 */
import { expect, test } from "bun:test";
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

test.each(CASES)("npm run %s stopped with %s through npm's pid prints stopped, exits 0 and frees the port", async (script, signal) => {
  // A session of its own (`setsid` execs npm, so npm keeps the pid): whatever happens, the finally
  // below kills npm and everything it started, a server npm left behind included.
  const npm = Bun.spawn(["setsid", "npm", "run", "--silent", script], {
    env: { ...process.env, PORT: "0", API_KEYS: "k", DATA_FILE: tempDataFile() },
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
    if (port === undefined) throw new Error(`npm run ${script} did not start:\n${output()}`);
    process.kill(npm.pid, signal);
    const code = await Promise.race([npm.exited, after(EXIT_TIMEOUT_MS, "still running")]);
    expect({ code, output: output() }).toEqual({ code: 0, output: expect.stringContaining("stopped") });
    expect(await portIsFree(port)).toBe(true);
  } finally {
    try {
      process.kill(-npm.pid, "SIGKILL");
    } catch {
      // The group is gone already: nothing was left behind.
    }
    await npm.exited;
  }
}, START_TIMEOUT_MS + EXIT_TIMEOUT_MS + 5_000);
