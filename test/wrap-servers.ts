/**
 * @module
 * The app served inside a wrap on every adapter (`test/fixtures/wrap-server.ts`), for the tests of what
 * a wrap may do with the request it is given.
 */
import type { Subprocess } from "bun";
import { captureOutput } from "./output.ts";
import { NODE_TS } from "./node-ts.ts";

const FIXTURE = "test/fixtures/wrap-server.ts";
const DENO = ["node_modules/.bin/deno", "run", "--allow-net", "--allow-env", "--allow-read", FIXTURE];

/** Each adapter, by name, and the runtime command that serves the fixture with it. */
export const WRAP_TARGETS: readonly (readonly [name: string, serve: "bun" | "deno" | "node", command: readonly string[]])[] = [
  ["serveBun on Bun", "bun", ["node_modules/.bin/bun", FIXTURE]],
  ["serveDeno on Deno", "deno", DENO],
  ["serveNode on Deno", "node", DENO],
  ["serveNode on Node", "node", [...NODE_TS, FIXTURE]],
];

/** A wrap server that listens: its URL, its process, and what it printed so far. */
export interface WrapServer {
  readonly url: string;
  readonly child: Subprocess;
  readonly output: () => string;
}

const started = new Set<Subprocess>();

/** Stops every wrap server still running (for `afterAll`: a test that timed out left its own). */
export function stopWrapServers(): void {
  for (const child of started) child.kill("SIGKILL");
}

/** Starts the fixture with `command`, serving through the adapter `serve` inside the wrap `wrap`, and resolves once it listens. */
export async function startWrapServer(command: readonly string[], serve: string, wrap: string, env: Record<string, string> = {}): Promise<WrapServer> {
  const child = Bun.spawn([...command], { env: { ...process.env, SERVE: serve, WRAP: wrap, ...env }, stdout: "pipe", stderr: "pipe" });
  started.add(child);
  void child.exited.then(() => started.delete(child));
  const output = captureOutput(child);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const url = /listening on (\S+)/.exec(output())?.[1];
    if (url !== undefined) return { url, child, output };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`The fixture did not start:\n${output()}`);
    }
    await Bun.sleep(20);
  }
}
