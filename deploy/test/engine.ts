/**
 * @module
 * The two container engines of the deploy test, one shape: every call bounded in time, its output
 * returned rather than printed. Podman runs with `containers.conf` beside this file (the limits this
 * kind of machine allows, as docs/deploy.md's "If your host refuses" prints, and runc); Docker is
 * whichever `docker` is on the PATH, talking to the running daemon.
 */
import { join } from "node:path";

/** What a finished command said. */
export interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A container engine's command line. */
export interface Engine {
  readonly name: "docker" | "podman";
  /** The environment its commands, and the page's blocks for it, run with. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Runs `<engine> ...args` to its end (at most `timeoutMs`). */
  run(args: readonly string[], timeoutMs?: number): Result;
  /** Runs `<engine> ...args` and returns its trimmed stdout; throws with its stderr when it fails. */
  ok(args: readonly string[], timeoutMs?: number): string;
  /** Whether an image of that name is stored. */
  imageExists(name: string): boolean;
  /** Waits until the container's health check passes, at most `timeoutMs`; throws if it never does. */
  waitHealthy(container: string, timeoutMs?: number): Promise<void>;
  /** The container's logs, stdout and stderr together. */
  logs(container: string): string;
}

/** The podman settings the deploy test runs with. */
export const CONTAINERS_CONF: string = join(import.meta.dir, "containers.conf");

/** The engine called `name`. */
export function engine(name: "docker" | "podman"): Engine {
  const env = name === "podman" ? { ...process.env, CONTAINERS_CONF } : { ...process.env };
  const run = (args: readonly string[], timeoutMs = 120_000): Result => {
    const result = Bun.spawnSync([name, ...args], { env, stdout: "pipe", stderr: "pipe", timeout: timeoutMs });
    return { code: result.exitCode ?? -1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  };
  const ok = (args: readonly string[], timeoutMs?: number): string => {
    const result = run(args, timeoutMs);
    if (result.code !== 0) throw new Error(`${name} ${args.join(" ")} exited ${result.code}:\n${result.stderr.trim()}`);
    return result.stdout.trim();
  };
  // Docker's daemon runs health checks itself; podman runs them from systemd timers, which a machine
  // without systemd (a CI container) has none of, so the check is run here, as the page prints.
  const healthy = (container: string): Result =>
    name === "podman" ? run(["healthcheck", "run", container]) : run(["inspect", "--format", "{{.State.Health.Status}}", container]);
  return {
    name,
    env,
    run,
    ok,
    imageExists: (image) => run(["image", "inspect", "--format", "{{.Id}}", image]).code === 0,
    async waitHealthy(container, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const result = healthy(container);
        if (result.code === 0 && (name === "podman" || result.stdout.trim() === "healthy")) return;
        if (Date.now() > deadline) throw new Error(`${container} never became healthy: ${result.stdout}${result.stderr}`);
        await Bun.sleep(500);
      }
    },
    logs(container) {
      const result = run(["logs", container]);
      return result.stdout + result.stderr;
    },
  };
}
