/**
 * @module
 * The deploy files proven in real container engines as docs/deploy.md prints them: `npm run
 * test:deploy` (root, with Debian's podman, runc, mmdebstrap, docker.io and docker-compose, which
 * `.ci/run` installs, and a running Docker daemon, which it starts).
 *
 * Makes the base image `localhost/debian:bookworm-slim` with mmdebstrap and `podman import` (once per
 * machine; Docker gets the same image by `podman save | docker load`), and stand-ins for the
 * PostgreSQL and Prometheus images (Debian's packages, built once per machine), tagged for the run
 * under the names the Containerfile and compose.yaml use, since no registry is reachable. Then, for
 * Docker and for podman, the page's section run block by block as printed: the image built and run
 * (as uid 10001, healthy, read-only root, data kept on the volume), stopped with `stopped` and exit 0,
 * and the compose stack up (a pet made through one instance listed by the other, Prometheus scraping
 * both with the alert rules loaded), down and up again with nothing lost. Then the alert rules with
 * promtool. Prints how long each part took; ends with `deploy: N passed, M failed`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChecks, waitFor } from "../../test/checks.ts";
import { CONTAINERS_CONF, engine } from "./engine.ts";
import type { Engine } from "./engine.ts";
import { blocks, inSession, line, ROOT, runPrinted, section } from "./page.ts";
import { containerKeys, removeKeyFiles, stackKeys } from "./keys.ts";

const BASE = "localhost/debian:bookworm-slim";
/** The stand-ins built here, and the names the deploy files give the images they stand in for. */
const IMAGES: readonly { local: string; file?: string; names: Readonly<Record<Engine["name"], string>> }[] = [
  { local: BASE, names: { docker: "debian:bookworm-slim", podman: BASE } },
  { local: "localhost/postgres-stand-in:15", file: "postgres.Containerfile", names: { docker: "postgres:15-bookworm", podman: "docker.io/library/postgres:15-bookworm" } },
  { local: "localhost/prometheus-stand-in:latest", file: "prometheus.Containerfile", names: { docker: "prom/prometheus:v2.53.0", podman: "docker.io/prom/prometheus:v2.53.0" } },
];
/** What the page's commands name: the container, its volume, the image, the compose project's volume. */
const PRINTED = { container: "pets", volume: "pets", image: "animal-store", project: "animal-store", pgdata: "animal-store_pgdata" };
/** The page's sections, and how many `sh` blocks each has: image, stop, stack up, stack down. */
const SECTIONS = { docker: "With Docker", podman: "With podman" } as const;
const KEY = "change-me";
const AUTH = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
const PORT = 8080;
/** The host ports the compose stack publishes. */
const STACK_PORTS = [8081, 8082, 9090];

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

async function expectFree(ports: readonly number[]): Promise<void> {
  const busy = (await Promise.all(ports.map(async (port) => ((await isFree(port)) ? undefined : port)))).filter((port) => port !== undefined);
  if (busy.length > 0) throw new Error(`the page's ports are in use on this machine: ${busy.join(", ")}`);
}

function expect(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
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

/** Waits until `base` answers a list, at most 30 s. */
function answering(base: string): Promise<unknown> {
  return waitFor(`${base} to answer`, async () => ((await fetch(`${base}/pets`, { headers: AUTH })).ok ? true : undefined), 30_000);
}

/** The tags this run added (to be taken off at the end), by engine. */
const added: [Engine, string][] = [];

/** The base image and the stand-ins in podman (made once), then in both engines under the deploy files' names. */
async function images(docker: Engine, podman: Engine): Promise<void> {
  await timed("tools", "podman, runc, mmdebstrap, promtool, docker and docker-compose are installed, and Docker's daemon answers", () => {
    for (const tool of ["podman", "runc", "mmdebstrap", "promtool", "docker", "docker-compose"]) if (Bun.which(tool) === null) throw new Error(`${tool} is not on the PATH`);
    docker.ok(["info", "--format", "{{.ServerVersion}}"]);
  });
  if (anyFailed()) return;
  await timed("base image", `the base image ${BASE}: mmdebstrap --variant=minbase bookworm, podman import (kept once made)`, () => {
    if (podman.imageExists(BASE)) return;
    const folder = mkdtempSync(join(tmpdir(), "animal-store-rootfs-"));
    try {
      const tarball = join(folder, "rootfs.tar");
      // As debian:bookworm-slim: no manuals, no translations, no package lists left behind.
      const made = Bun.spawnSync(["mmdebstrap", "--quiet", "--variant=minbase", "--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/locale/*", "--dpkgopt=path-exclude=/usr/share/doc/*", "--customize-hook=rm -rf \"$1\"/var/lib/apt/lists/* \"$1\"/var/cache/apt/*", "bookworm", tarball], { stdout: "pipe", stderr: "pipe", timeout: 600_000 });
      if (made.exitCode !== 0) throw new Error(`mmdebstrap exited ${made.exitCode}:\n${made.stderr}`);
      podman.ok(["import", tarball, BASE], 300_000);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
  await timed("stand-in images", "stand-ins for PostgreSQL and Prometheus from Debian's postgresql-15 and prometheus (kept once made)", () => {
    for (const { local, file } of IMAGES) {
      if (file === undefined || podman.imageExists(local)) continue;
      podman.ok(["build", "--quiet", "--format", "docker", "--build-arg", `BASE=${BASE}`, "--tag", local, "--file", join(import.meta.dir, "stand-ins", file), join(import.meta.dir, "stand-ins")], 600_000);
    }
  });
  await timed("images to Docker", "the same images in Docker (podman save | docker load), and both engines have them under the names the deploy files use", () => {
    for (const { local, names } of IMAGES) {
      if (!docker.imageExists(local)) {
        const loaded = Bun.spawnSync(["bash", "-o", "pipefail", "-c", `podman save ${local} | docker load`], { env: podman.env, stdout: "pipe", stderr: "pipe", timeout: 300_000 });
        if (loaded.exitCode !== 0) throw new Error(`podman save ${local} | docker load exited ${loaded.exitCode}:\n${loaded.stderr}`);
      }
      // A name already there (the real image, pulled) is used as it is and left alone.
      for (const tool of [docker, podman]) {
        if (tool.imageExists(names[tool.name])) continue;
        tool.ok(["tag", local, names[tool.name]]);
        added.push([tool, names[tool.name]]);
      }
    }
  });
}

/** Fails unless none of the page's names is taken: the test removes only what it made. */
function expectUnused(tool: Engine, containers: readonly string[], volumes: readonly string[]): void {
  const taken = [
    ...containers.filter((name) => tool.run(["container", "inspect", name]).code === 0),
    ...volumes.filter((name) => tool.run(["volume", "inspect", name]).code === 0),
  ];
  if (taken.length > 0) throw new Error(`${tool.name} already has ${taken.join(", ")}, not made by this run: remove them to run the deploy test`);
}

/** The page's image block, then its stop block, with the checks a user would make between them. */
async function container(tool: Engine, printed: readonly string[]): Promise<void> {
  const [build, stop] = printed;
  const { container, volume, image } = PRINTED;
  const base = `http://127.0.0.1:${PORT}/v1`;
  try {
    await timed(`${tool.name} image`, `${tool.name}: the page's build and run lines, as printed (npm run build:exe, ${line(build!, `${tool.name} build`)})`, async () => {
      expectUnused(tool, [container], [volume]);
      await expectFree([PORT]);
      runPrinted(build!, tool.env);
      await answering(base);
    });
    if (anyFailed()) return;
    const started = performance.now();
    await check(`${tool.name}: the image shows its health check (${tool.name} inspect), and the container goes healthy`, async () => {
      expect("the image's health check", JSON.parse(tool.ok(["image", "inspect", "--format", "{{json .Config.Healthcheck.Test}}", image])), ["CMD", "animal-store", "health"]);
      await tool.waitHealthy(container, 60_000);
      expect("health", tool.ok(["inspect", "--format", "{{.State.Health.Status}}", container]), "healthy");
    });
    await check(`${tool.name}: it serves through the mapped port as uid 10001, with a read-only root, its data in the volume`, async () => {
      await createPet(base, "Rex");
      expect("pets", await petNames(base), ["Rex"]);
      const pid = tool.ok(["inspect", "--format", "{{.State.Pid}}", container]);
      expect("the server's uid", /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1], "10001");
      expect("read-only root", tool.ok(["inspect", "--format", "{{.HostConfig.ReadonlyRootfs}}", container]), "true");
    });
    await check(`${tool.name}: the page's stop line: the server, PID 1, prints stopped and exits 0 well within the 10 s grace`, () => {
      const stopping = performance.now();
      runPrinted(stop!, tool.env, 30_000);
      const seconds = (performance.now() - stopping) / 1000;
      expect("exit code", tool.ok(["inspect", "--format", "{{.State.ExitCode}}", container]), "0");
      if (!/^stopped$/m.test(tool.logs(container))) throw new Error(`no "stopped" in the logs:\n${tool.logs(container)}`);
      if (seconds > 5) throw new Error(`${tool.name} stop took ${seconds.toFixed(1)} s`);
      console.log(`  ${tool.name} stop took ${seconds.toFixed(1)} s`);
    });
    await check(`${tool.name}: the data survives removing the container and running the printed line again on the same volume`, async () => {
      tool.ok(["rm", container]);
      runPrinted(line(build!, `${tool.name} run `), tool.env);
      await answering(base);
      expect("pets after re-creating", await petNames(base), ["Rex"]);
    });
    times.push(`${tool.name} container checks ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    tool.run(["rm", "--force", container]);
    tool.run(["volume", "rm", "--force", volume]);
  }
}

/**
 * The printed build line with each of Docker's builders: the classic one (`DOCKER_BUILDKIT=0`) and
 * BuildKit, through buildx where the client has it (Docker's own packages) and otherwise through the
 * BuildKit built into Debian 12's `docker.io` 20.10 client (`/usr/bin/docker`).
 */
async function builders(docker: Engine, build: string): Promise<void> {
  const printed = line(build, "docker build ");
  const buildx = docker.run(["buildx", "version"]).code === 0;
  const ways: [string, Record<string, string | undefined>][] = [
    ["the classic builder (DOCKER_BUILDKIT=0)", { DOCKER_BUILDKIT: "0" }],
    buildx
      ? ["BuildKit (DOCKER_BUILDKIT=1, buildx)", { DOCKER_BUILDKIT: "1" }]
      : ["BuildKit (DOCKER_BUILDKIT=1, Debian's docker.io client, this docker having no buildx)", { DOCKER_BUILDKIT: "1", PATH: `/usr/bin:${process.env.PATH}` }],
  ];
  for (const [way, env] of ways) {
    await check(`docker: the printed build line builds with ${way}, keeping the health check`, () => {
      docker.run(["rmi", `${PRINTED.image}:latest`]);
      runPrinted(printed, { ...docker.env, ...env });
      expect("the image's health check", JSON.parse(docker.ok(["image", "inspect", "--format", "{{json .Config.Healthcheck.Test}}", PRINTED.image])), ["CMD", "animal-store", "health"]);
    });
  }
}

/** For Docker: the printed `docker compose` where Compose v2 is installed, else Debian's `docker-compose`. */
function composeCommand(docker: Engine): string {
  return docker.run(["compose", "version"]).code === 0 ? "docker compose" : "docker-compose";
}

/** The stack's containers of `service`, by the compose labels (Docker) or the printed names (podman). */
function stackContainer(tool: Engine, service: string): string {
  if (tool.name === "podman") return `${PRINTED.project}-${service}`;
  const found = tool.ok(["ps", "--all", "--quiet", "--filter", `label=com.docker.compose.project=${PRINTED.project}`, "--filter", `label=com.docker.compose.service=${service}`]);
  if (found === "") throw new Error(`no container of the service ${service}`);
  return found.split("\n")[0]!;
}

/** The page's stack: up, the checks, both instances stopped with exit 0, down, up again with nothing lost. */
async function stack(tool: Engine, printed: readonly string[], compose: string): Promise<void> {
  const [up = "", printedDown = ""] = printed.map((block) => block.replaceAll("docker compose ", `${compose} `));
  const down = inSession([up], printedDown);
  const [one, two] = ["http://127.0.0.1:8081/v1", "http://127.0.0.1:8082/v1"];
  const started = performance.now();
  const names = { docker: `(with ${compose})`, podman: "(podman's commands)" }[tool.name];
  const stackNames = ["postgres", "store-1", "store-2", "prometheus"].map((service) => `${PRINTED.project}-${service}`);
  let ran = false;
  try {
    await check(`${tool.name}: the page's compose stack starts as printed ${names}: PostgreSQL, both instances once it is healthy, Prometheus once they are`, async () => {
      expectUnused(tool, tool.name === "podman" ? stackNames : [], [PRINTED.pgdata]);
      await expectFree(STACK_PORTS);
      ran = true;
      runPrinted(up, tool.env, 600_000);
      for (const service of ["store-1", "store-2"]) {
        const said = tool.logs(stackContainer(tool, service));
        if (!said.includes('opened PostgreSQL database "pets" on postgres:5432')) throw new Error(`${service} did not open the database:\n${said}`);
      }
    });
    if (!ran || anyFailed()) return;
    await check(`${tool.name}: a pet created through store-1 is listed by store-2`, async () => {
      await createPet(one, "Shared");
      expect("store-2's pets", await petNames(two), ["Shared"]);
    });
    await check(`${tool.name}: Prometheus scrapes both instances' METRICS_PORTs and has loaded the alert rules`, async () => {
      const query = encodeURIComponent('up{job="animal-store"} == 1');
      await waitFor("both targets up", async () => {
        const body = (await (await fetch(`http://127.0.0.1:9090/api/v1/query?query=${query}`)).json()) as { data: { result: { metric: { instance: string } }[] } };
        const upNow = body.data.result.map((sample) => sample.metric.instance).sort();
        return JSON.stringify(upNow) === JSON.stringify(["store-1:9465", "store-2:9466"]) ? upNow : undefined;
      });
      const rules = (await (await fetch("http://127.0.0.1:9090/api/v1/rules")).json()) as { data: { groups: { name: string; rules: unknown[] }[] } };
      expect("rule groups", rules.data.groups.map((group) => [group.name, group.rules.length]), [["animal-store", 5]]);
    });
    if (tool.name === "docker") await stackKeys(tool, compose, check);
    await check(`${tool.name}: stopping the instances, each prints stopped and exits 0`, () => {
      for (const service of ["store-1", "store-2"]) {
        const container = stackContainer(tool, service);
        tool.ok(["stop", "--time", "10", container], 30_000);
        expect(`${service}'s exit code`, tool.ok(["inspect", "--format", "{{.State.ExitCode}}", container]), "0");
        if (!/^stopped$/m.test(tool.logs(container))) throw new Error(`${service}: no "stopped" in its logs`);
      }
    });
    await check(`${tool.name}: the page's down, then up again: the same pets, through both instances`, async () => {
      runPrinted(down, tool.env, 120_000);
      // The docker block starts the stack again itself; for podman the page says to run the up block again.
      if (tool.name === "podman") runPrinted(up, tool.env, 600_000);
      await answering(one);
      expect("store-1's pets", await petNames(one), ["Shared"]);
      expect("store-2's pets", await petNames(two), ["Shared"]);
    });
  } finally {
    if (ran) {
      if (tool.name === "docker") runPrinted(inSession([up], `${compose} -p ${PRINTED.project} -f deploy/compose.yaml down --volumes --timeout 10`), tool.env, 120_000);
      else {
        tool.run(["rm", "--force", "--time", "10", ...stackNames]);
        tool.run(["network", "rm", PRINTED.project]);
        tool.run(["volume", "rm", "--force", PRINTED.pgdata]);
      }
    }
    times.push(`${tool.name} compose checks ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

/** One engine's section of the page, run block by block. */
async function engineSection(tool: Engine, compose: string): Promise<void> {
  const printed = blocks(section(SECTIONS[tool.name]));
  if (printed.length !== 4) return fail(`docs/deploy.md's "${SECTIONS[tool.name]}" has ${printed.length} sh blocks, not the 4 this test runs (image, stop, stack up, stack down)`);
  await container(tool, printed.slice(0, 2));
  if (tool.name === "docker" && !anyFailed()) await containerKeys(tool, check);
  if (tool.name === "docker") await builders(tool, printed[0]!);
  if (!anyFailed()) await stack(tool, printed.slice(2), compose);
  tool.run(["rmi", `${PRINTED.image}:latest`]);
}

async function alertRules(): Promise<void> {
  await timed("alert rules", "promtool check rules deploy/alerts.yml, and promtool test rules deploy/test/alerts.test.yml", () => {
    for (const argv of [["promtool", "check", "rules", "deploy/alerts.yml"], ["promtool", "test", "rules", "deploy/test/alerts.test.yml"]]) {
      const result = Bun.spawnSync(argv, { cwd: ROOT, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
      if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${result.exitCode}:\n${result.stdout}${result.stderr}`);
    }
  });
}

const started = performance.now();
const docker = engine("docker");
const podman = engine("podman");
try {
  await check("the page's \"If your host refuses\" settings are the ones podman runs with here", () => {
    const printed = blocks(section("With podman"), "toml");
    expect("toml blocks", printed.length, 1);
    if (!readFileSync(CONTAINERS_CONF, "utf8").includes(printed[0]!)) throw new Error(`deploy/test/containers.conf does not hold the page's:\n${printed[0]}`);
  });
  await images(docker, podman);
  if (!anyFailed()) {
    await engineSection(docker, composeCommand(docker));
    await engineSection(podman, "");
    await alertRules();
  }
} catch (error) {
  fail("the run stopped", error);
} finally {
  for (const [tool, name] of added) tool.run(["rmi", name]);
  removeKeyFiles();
}
console.log(`times: ${times.join(", ")}; total ${((performance.now() - started) / 1000).toFixed(1)} s`);
finish();
