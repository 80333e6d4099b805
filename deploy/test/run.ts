/**
 * @module
 * The deploy files proven in a real container engine: `npm run test:deploy` (root, Debian's podman,
 * runc and mmdebstrap, which `.ci/run` installs; podman set up by `containers.conf` beside this file).
 *
 * Makes the base image `localhost/debian:bookworm-slim` with mmdebstrap (once per machine), builds
 * the executable and the image from `deploy/Containerfile` on it, and checks the container: it
 * answers as a non-root user, goes healthy, keeps its data across re-creation on the same volume,
 * stops cleanly as PID 1, runs with a read-only root. Then the alert rules with promtool, and
 * `deploy/compose.yaml` with stand-ins for PostgreSQL and Prometheus (Debian's packages, built once
 * per machine): a pet made through one instance is listed by the other and Prometheus scrapes both.
 * Prints how long each part took; ends with `deploy: N passed, M failed`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChecks, freePort, waitFor } from "../../test/checks.ts";
import { composeUp } from "./compose.ts";
import type { Project } from "./compose.ts";
import { imageExists, logs, podman, podmanOk, waitHealthy } from "./podman.ts";

const ROOT = join(import.meta.dir, "..", "..");
const BASE = "localhost/debian:bookworm-slim";
const IMAGE = "localhost/animal-store:latest";
/** The images compose.yaml names that cannot be pulled here, and the local stand-ins built for them. */
const STAND_INS: Readonly<Record<string, { image: string; file: string }>> = {
  "docker.io/library/postgres:15-bookworm": { image: "localhost/postgres-stand-in:15", file: "postgres.Containerfile" },
  "docker.io/prom/prometheus:v2.53.0": { image: "localhost/prometheus-stand-in:latest", file: "prometheus.Containerfile" },
};
const CONTAINER = "animal-store-deploy-test";
const VOLUME = "animal-store-deploy-test-data";
const KEY = "deploy-test-key";
const AUTH = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
/** The ports compose.yaml's services listen on, on the host's network here. */
const COMPOSE_PORTS = [5432, 8081, 8082, 9090, 9465, 9466];

const { check, fail, anyFailed, finish } = createChecks("deploy");
const times: string[] = [];

/** Runs `body` as one check and records how long it took under `part`. */
async function timed(part: string, name: string, body: () => Promise<void> | void): Promise<void> {
  const started = performance.now();
  await check(name, body);
  times.push(`${part} ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "0.0.0.0", () => probe.close(() => resolve(true)));
  });
}

function expect(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** Starts the image as CONTAINER on `port` with the data volume and `options`; waits for its URL. */
async function runContainer(port: number, options: readonly string[] = []): Promise<string> {
  podmanOk(["run", "--detach", "--name", CONTAINER, "--env", `PORT=${port}`, "--env", `API_KEYS=${KEY}`, "--volume", `${VOLUME}:/data`, ...options, IMAGE]);
  const base = `http://127.0.0.1:${port}/v1`;
  await waitFor(`${CONTAINER} to answer on ${port}`, async () => ((await fetch(`${base}/pets`, { headers: AUTH })).ok ? true : undefined), 20_000);
  return base;
}

/** `podman stop`: how long it took and the exit code; the logs must end with `stopped`. */
function stopContainer(): { seconds: number; code: number; logs: string } {
  const started = performance.now();
  podmanOk(["stop", "--time", "10", CONTAINER]);
  const seconds = (performance.now() - started) / 1000;
  return { seconds, code: Number(podmanOk(["inspect", "--format", "{{.State.ExitCode}}", CONTAINER])), logs: logs(CONTAINER) };
}

function removeContainer(): void {
  podman(["rm", "--force", "--time", "0", CONTAINER]);
}

async function petNames(base: string): Promise<string[]> {
  const response = await fetch(`${base}/pets?limit=100`, { headers: AUTH });
  if (!response.ok) throw new Error(`GET ${base}/pets answered ${response.status}`);
  return ((await response.json()) as { name: string }[]).map((pet) => pet.name);
}

async function createPet(base: string, name: string): Promise<void> {
  const response = await fetch(`${base}/pets`, { method: "POST", headers: AUTH, body: JSON.stringify({ name, categoryId: 1 }) });
  if (response.status !== 201) throw new Error(`POST ${base}/pets answered ${response.status}: ${await response.text()}`);
}

async function images(): Promise<void> {
  await timed("tools", "podman, runc, mmdebstrap and promtool are installed (apt-get install podman runc mmdebstrap uidmap prometheus)", () => {
    for (const tool of ["podman", "runc", "mmdebstrap", "promtool"]) if (Bun.which(tool) === null) throw new Error(`${tool} is not on the PATH`);
  });
  if (anyFailed()) return;
  await timed("base image", `the base image ${BASE}: mmdebstrap --variant=minbase bookworm, podman import (kept once made)`, () => {
    if (imageExists(BASE)) return;
    const folder = mkdtempSync(join(tmpdir(), "animal-store-rootfs-"));
    try {
      const tarball = join(folder, "rootfs.tar");
      // As debian:bookworm-slim: no manuals, no translations, no package lists left behind.
      const made = Bun.spawnSync(["mmdebstrap", "--quiet", "--variant=minbase", "--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/locale/*", "--dpkgopt=path-exclude=/usr/share/doc/*", "--customize-hook=rm -rf \"$1\"/var/lib/apt/lists/* \"$1\"/var/cache/apt/*", "bookworm", tarball], { stdout: "pipe", stderr: "pipe", timeout: 600_000 });
      if (made.exitCode !== 0) throw new Error(`mmdebstrap exited ${made.exitCode}:\n${made.stderr}`);
      podmanOk(["import", tarball, BASE], 300_000);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
  await timed("service image", `npm run build:exe, then ${IMAGE} from deploy/Containerfile on ${BASE}`, () => {
    const built = Bun.spawnSync(["npm", "run", "build:exe"], { cwd: ROOT, stdout: "pipe", stderr: "pipe", timeout: 300_000 });
    if (built.exitCode !== 0) throw new Error(`npm run build:exe exited ${built.exitCode}:\n${built.stderr}`);
    podmanOk(["build", "--quiet", "--format", "docker", "--build-arg", `BASE=${BASE}`, "--tag", IMAGE, "--file", join(ROOT, "deploy", "Containerfile"), join(ROOT, "dist")], 300_000);
    const bytes = Number(podmanOk(["image", "inspect", "--format", "{{.Size}}", IMAGE]));
    const base = Number(podmanOk(["image", "inspect", "--format", "{{.Size}}", BASE]));
    console.log(`  image size: ${(bytes / 1e6).toFixed(0)} MB (the base ${(base / 1e6).toFixed(0)} MB, the executable and its layer ${((bytes - base) / 1e6).toFixed(0)} MB)`);
  });
}

async function container(): Promise<void> {
  removeContainer();
  podman(["volume", "rm", "--force", VOLUME]);
  const port = await freePort();
  const started = performance.now();
  try {
    let base = "";
    await check("the container starts and answers over HTTP as a non-root user", async () => {
      base = await runContainer(port);
      await createPet(base, "Rex");
      expect("pets", await petNames(base), ["Rex"]);
      const pid = podmanOk(["inspect", "--format", "{{.State.Pid}}", CONTAINER]);
      const uid = /^Uid:\s+(\d+)/m.exec(await Bun.file(`/proc/${pid}/status`).text())?.[1];
      expect("the server's uid", uid, "10001");
    });
    await check("its HEALTHCHECK (animal-store health) goes healthy", async () => {
      await waitHealthy(CONTAINER, 20_000);
      expect("health", podmanOk(["inspect", "--format", "{{.State.Health.Status}}", CONTAINER]), "healthy");
    });
    await check("podman stop: the server, PID 1, prints stopped and exits 0 well within the 10 s grace", () => {
      const stopped = stopContainer();
      expect("exit code", stopped.code, 0);
      if (!/^stopped$/m.test(stopped.logs)) throw new Error(`no "stopped" in the logs:\n${stopped.logs}`);
      if (stopped.seconds > 5) throw new Error(`podman stop took ${stopped.seconds.toFixed(1)} s`);
      console.log(`  podman stop took ${stopped.seconds.toFixed(1)} s`);
    });
    await check("the data survives removing and re-creating the container on the same volume", async () => {
      removeContainer();
      base = await runContainer(port);
      expect("pets after re-creating", await petNames(base), ["Rex"]);
      expect("exit code", stopContainer().code, 0);
      removeContainer();
    });
    await check("with a read-only root file system (--read-only) it serves, writes to the volume and stops cleanly", async () => {
      base = await runContainer(port, ["--read-only"]);
      await createPet(base, "Tom");
      expect("pets", await petNames(base), ["Rex", "Tom"]);
      const stopped = stopContainer();
      expect("exit code", stopped.code, 0);
      if (!/^stopped$/m.test(stopped.logs)) throw new Error(`no "stopped" in the logs:\n${stopped.logs}`);
    });
  } finally {
    removeContainer();
    podman(["volume", "rm", "--force", VOLUME]);
    times.push(`container checks ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

async function alertRules(): Promise<void> {
  await timed("alert rules", "promtool check rules deploy/alerts.yml, and promtool test rules deploy/test/alerts.test.yml", () => {
    for (const argv of [["promtool", "check", "rules", "deploy/alerts.yml"], ["promtool", "test", "rules", "deploy/test/alerts.test.yml"]]) {
      const result = Bun.spawnSync(argv, { cwd: ROOT, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
      if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${result.exitCode}:\n${result.stdout}${result.stderr}`);
    }
  });
}

async function compose(): Promise<void> {
  await timed("stand-in images", "stand-ins for PostgreSQL and Prometheus from Debian's postgresql-15 and prometheus (kept once made)", () => {
    for (const { image, file } of Object.values(STAND_INS)) {
      if (imageExists(image)) continue;
      podmanOk(["build", "--quiet", "--format", "docker", "--build-arg", `BASE=${BASE}`, "--tag", image, "--file", join(import.meta.dir, "stand-ins", file), join(import.meta.dir, "stand-ins")], 600_000);
    }
  });
  const busy = (await Promise.all(COMPOSE_PORTS.map(async (port) => ((await isFree(port)) ? undefined : port)))).filter((port) => port !== undefined);
  if (busy.length > 0) return fail(`compose.yaml's ports are in use on this machine: ${busy.join(", ")}`);
  const started = performance.now();
  let project: Project | undefined;
  try {
    const standIns = Object.fromEntries(Object.entries(STAND_INS).map(([name, { image }]) => [name, image]));
    await check("compose.yaml starts: PostgreSQL, then both instances once it is healthy, then Prometheus once they are", async () => {
      project = await composeUp(join(ROOT, "deploy", "compose.yaml"), { API_KEYS: KEY }, standIns);
      for (const name of ["store-1", "store-2"]) {
        const said = logs(project.containers.get(name)!);
        if (!said.includes('opened PostgreSQL database "pets" on postgres:5432')) throw new Error(`${name} did not open the database:\n${said}`);
      }
    });
    if (project === undefined) return;
    await check("a pet created through store-1 is listed by store-2", async () => {
      await createPet("http://127.0.0.1:8081/v1", "Shared");
      expect("store-2's pets", await petNames("http://127.0.0.1:8082/v1"), ["Shared"]);
    });
    await check("Prometheus scrapes both instances' METRICS_PORTs and has loaded the alert rules", async () => {
      const query = encodeURIComponent('up{job="animal-store"} == 1');
      await waitFor("both targets up", async () => {
        const body = (await (await fetch(`http://127.0.0.1:9090/api/v1/query?query=${query}`)).json()) as { data: { result: { metric: { instance: string } }[] } };
        const up = body.data.result.map((sample) => sample.metric.instance).sort();
        return JSON.stringify(up) === JSON.stringify(["store-1:9465", "store-2:9466"]) ? up : undefined;
      });
      const rules = (await (await fetch("http://127.0.0.1:9090/api/v1/rules")).json()) as { data: { groups: { name: string; rules: unknown[] }[] } };
      expect("rule groups", rules.data.groups.map((group) => [group.name, group.rules.length]), [["animal-store", 5]]);
    });
    await check("stopping the project: both instances print stopped and exit 0", () => {
      const codes = project!.down();
      expect("exit codes", [codes["store-1"], codes["store-2"]], [0, 0]);
      for (const name of ["store-1", "store-2"]) if (!/^stopped$/m.test(logs(project!.containers.get(name)!))) throw new Error(`${name}: no "stopped" in its logs`);
    });
  } finally {
    project?.remove();
    times.push(`compose checks ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

const started = performance.now();
try {
  await images();
  if (!anyFailed()) {
    await container();
    await alertRules();
    await compose();
  }
} catch (error) {
  fail("the run stopped", error);
}
console.log(`times: ${times.join(", ")}; total ${((performance.now() - started) / 1000).toFixed(1)} s`);
finish();
