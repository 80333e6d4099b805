/**
 * @module
 * Starts the programs under test (the examples of `docs/library.md`, workerd) as child processes, waits until
 * they serve, and stops them. Every start has a time limit and every process is killed on stop.
 */
import { createServer } from "node:net";
import { captureOutput } from "../test/output.ts";

/** A running program that serves HTTP. */
export interface Served {
  /** The URL it serves at (the one it printed, or the one it was given). */
  readonly url: string;
  /** Everything it printed so far. */
  output(): string;
  /** Kills it and resolves once it has exited. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 15_000;

/** Runs `argv` and resolves once it prints `listening on <url>`. */
export function startPrinting(argv: string[], cwd: string, env: Record<string, string> = {}): Promise<Served> {
  return start(argv, cwd, env, async (output) => /listening on (http:\/\/\S+)/.exec(output)?.[1]);
}

/** Runs `argv` and resolves once `url` answers an HTTP request. */
export function startPolling(argv: string[], cwd: string, url: string): Promise<Served> {
  return start(argv, cwd, {}, () => fetch(url).then(() => url, () => undefined));
}

/** Runs `argv` and resolves with `url` once it prints something matching `ready`. */
export function startPrintingReady(argv: string[], cwd: string, url: string, ready: RegExp, env: Record<string, string> = {}): Promise<Served> {
  return start(argv, cwd, env, async (output) => (ready.test(output) ? url : undefined));
}

async function start(argv: string[], cwd: string, env: Record<string, string>, ready: (output: string) => Promise<string | undefined>): Promise<Served> {
  const child = Bun.spawn(argv, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const output = captureOutput(child);
  const stop = async () => {
    child.kill("SIGKILL");
    await child.exited;
  };
  const started = Date.now();
  for (;;) {
    const url = await ready(output());
    if (url !== undefined) return { url, output, stop };
    if (child.exitCode !== null || Date.now() - started > START_TIMEOUT_MS) {
      await stop();
      throw new Error(`Cannot start ${argv.join(" ")}: it did not serve (exit code ${child.exitCode}):\n${output()}`);
    }
    await Bun.sleep(50);
  }
}

/** A port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
