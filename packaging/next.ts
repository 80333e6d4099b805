/**
 * @module
 * The Next.js recipe, as a Next user runs it: `next/` is a Next app (App Router) whose route
 * handler mounts the packed tarball. Its own install (Next and React, about 340 MB), which only the
 * packaging runner makes; the tarball is added without saving, then `next build` and `next start`.
 * `packaging/run.ts` runs its checks.
 */
import { join } from "node:path";
import { freePort, type Served, startPrintingReady } from "./processes.ts";

const HERE = join(import.meta.dir, "next");
const NEXT_ENV = { NEXT_TELEMETRY_DISABLED: "1" };

/** Runs a command to its end; throws with its output unless it exits 0. */
function run(argv: string[], env: Record<string, string> = {}): void {
  const result = Bun.spawnSync(argv, { cwd: HERE, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${result.exitCode}:\n${result.stdout.toString()}${result.stderr.toString()}`);
}

/** Runs `body` and resolves with the seconds it took, to one decimal. */
function timed(body: () => void): string {
  const started = performance.now();
  body();
  return ((performance.now() - started) / 1000).toFixed(1);
}

/** Installs Next and the tarball into the app's folder and builds the app; returns what each step took. */
export function buildNext(tarball: string): string {
  const install = timed(() => {
    run(["npm", "install", "--no-audit", "--no-fund"]);
    run(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--offline", tarball]);
  });
  const build = timed(() => run([join(HERE, "node_modules", ".bin", "next"), "build"], NEXT_ENV));
  return `install ${install} s, build ${build} s`;
}

/**
 * Starts the built app with `next start` on a free port, its `PUBLIC_URL` the URL it is reached at.
 * Waits for Next's "Ready": a request that reaches it sooner can leave its routes unmatched (404).
 */
export async function startNext(): Promise<Served> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const argv = [join(HERE, "node_modules", ".bin", "next"), "start", "--port", String(port), "--hostname", "127.0.0.1"];
  return await startPrintingReady(argv, HERE, url, /Ready in/, { ...NEXT_ENV, PUBLIC_URL: url });
}
