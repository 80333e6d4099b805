/**
 * @module
 * Podman for the deploy test: every call with the project's `containers.conf` (runc, host network),
 * bounded in time, its output returned rather than printed.
 */
import { join } from "node:path";

/** What a finished podman command said. */
export interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const CONF = join(import.meta.dir, "containers.conf");

/** Runs `podman ...args` to its end (at most `timeoutMs`). */
export function podman(args: readonly string[], timeoutMs = 120_000): Result {
  const result = Bun.spawnSync(["podman", ...args], {
    env: { ...process.env, CONTAINERS_CONF: CONF },
    stdout: "pipe",
    stderr: "pipe",
    timeout: timeoutMs,
  });
  return { code: result.exitCode ?? -1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** Runs `podman ...args` and returns its trimmed stdout; throws with its stderr when it fails. */
export function podmanOk(args: readonly string[], timeoutMs?: number): string {
  const result = podman(args, timeoutMs);
  if (result.code !== 0) throw new Error(`podman ${args.join(" ")} exited ${result.code}:\n${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** Whether an image of that name is stored. */
export function imageExists(name: string): boolean {
  return podman(["image", "exists", name]).code === 0;
}

/** Runs the container's health check until it passes, at most `timeoutMs`; throws if it never does. */
export async function waitHealthy(container: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Podman runs health checks from systemd timers, which a container in CI has none of: run it here.
    const result = podman(["healthcheck", "run", container]);
    if (result.code === 0) return;
    if (Date.now() > deadline) throw new Error(`${container} never became healthy: ${result.stdout}${result.stderr}`);
    await Bun.sleep(500);
  }
}

/** The container's logs, stdout and stderr together. */
export function logs(container: string): string {
  const result = podman(["logs", container]);
  return result.stdout + result.stderr;
}
