/**
 * @module
 * The deploy files proven in real container engines as docs/deploy.md prints them: `npm run
 * test:deploy` (root, with Debian's podman, runc, mmdebstrap, docker.io, docker-compose and curl, which
 * `.ci/run` installs, and a running Docker daemon, which it starts).
 *
 * Makes the base image `localhost/debian:bookworm-slim` with mmdebstrap and `podman import` (once per
 * machine; Docker gets the same image by `podman save | docker load`), and stand-ins for the
 * PostgreSQL and Prometheus images (Debian's packages, built once per machine), tagged for the run
 * under the names the Containerfile and compose.yaml use, since no registry is reachable. Then, for
 * Docker and for podman, the page's sections run block by block as printed: the image built and run
 * (as uid 10001, healthy, read-only root, data kept on the volume), stopped with `stopped` and exit 0,
 * and the compose stack with what an operator does to it (`stack.ts`, `operations.ts`). Then the
 * systemd units under a real systemd, booted in a podman container (`systemd.ts`), and the alert
 * rules with promtool. Prints how long each part took; ends with `deploy: N passed, M failed`.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChecks } from "../../test/checks.ts";
import type { Run } from "./common.ts";
import { answering, createPet, expect, expectFree, expectNoSecretInEnv, expectUnused, KEY, petNames, PRINTED, SECRET_VARIABLES } from "./common.ts";
import { CONTAINERS_CONF, engine } from "./engine.ts";
import type { Engine } from "./engine.ts";
import { blocks, line, ROOT, runPrinted, section } from "./page.ts";
import { stack } from "./stack.ts";
import { containerKeys, removeKeyFiles } from "./keys.ts";
import { underSystemd } from "./systemd.ts";

const BASE = "localhost/debian:bookworm-slim";
const STAND_INS = join(import.meta.dir, "stand-ins");
/** The stand-ins' files, hashed into their tags: a changed stand-in is built again, not taken from an earlier run. */
const STAND_INS_HASH = createHash("sha256").update(readdirSync(STAND_INS).sort().map((name) => `${name}\0${readFileSync(join(STAND_INS, name), "utf8")}`).join("\0")).digest("hex").slice(0, 12);
/** The stand-ins built here, and the names the deploy files give the images they stand in for. */
const IMAGES: readonly { local: string; file?: string; names: Readonly<Record<Engine["name"], string>> }[] = [
  { local: BASE, names: { docker: "debian:bookworm-slim", podman: BASE } },
  { local: `localhost/postgres-stand-in:15-${STAND_INS_HASH}`, file: "postgres.Containerfile", names: { docker: "postgres:15-bookworm", podman: "docker.io/library/postgres:15-bookworm" } },
  { local: `localhost/prometheus-stand-in:${STAND_INS_HASH}`, file: "prometheus.Containerfile", names: { docker: "prom/prometheus:v2.53.0", podman: "docker.io/prom/prometheus:v2.53.0" } },
];
/** The page's sections, and its `sh` blocks each has: image, stop, (podman: the secrets, once,) stack up, stack down. */
const SECTIONS = { docker: "With Docker", podman: "With podman" } as const;
const BLOCKS = { docker: 4, podman: 5 } as const;
/** The one-container block's podman secret, removed at the end. */
const CONTAINER_SECRET = "pets-api-keys";
/** A secret given in a container's environment on the page's engine lines (`-e NAME=` or `-e NAME` of a secret setting, or a URL with a password). */
const SECRET_IN_ENV = new RegExp(`-e (${[...SECRET_VARIABLES].join("|")})(=|\\s)|postgres://[^:\\s]+:\\$`);
const PORT = 8080;
/** The image's health check: its liveness probe. */
const LIVENESS_CHECK = ["CMD", "animal-store", "health", "--live"];

const checks = createChecks("deploy");
const { check, fail, anyFailed, finish } = checks;
const times: string[] = [];

/** Runs `body` as one check and records how long it took under `part`. */
async function timed(part: string, name: string, body: () => Promise<void> | void): Promise<void> {
  const started = performance.now();
  await check(name, body);
  times.push(`${part} ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const run: Run = { ...checks, timed, times };

/** The tags this run added (to be taken off at the end), by engine. */
const added: [Engine, string][] = [];

/** The base image and the stand-ins in podman (made once), then in both engines under the deploy files' names. */
async function images(docker: Engine, podman: Engine): Promise<void> {
  await timed("tools", "podman, runc, mmdebstrap, promtool, docker, docker-compose and curl are installed, and Docker's daemon answers", () => {
    for (const tool of ["podman", "runc", "mmdebstrap", "promtool", "docker", "docker-compose", "curl"]) if (Bun.which(tool) === null) throw new Error(`${tool} is not on the PATH`);
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
      podman.ok(["build", "--quiet", "--format", "docker", "--build-arg", `BASE=${BASE}`, "--tag", local, "--file", join(STAND_INS, file), STAND_INS], 600_000);
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
    await check(`${tool.name}: the image shows its health check, liveness (${tool.name} inspect), and the container goes healthy`, async () => {
      expect("the image's health check", JSON.parse(tool.ok(["image", "inspect", "--format", "{{json .Config.Healthcheck.Test}}", image])), LIVENESS_CHECK);
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
    await check(`${tool.name}: the key came in as a file: ${tool.name} inspect shows it in no environment variable`, () => {
      expectNoSecretInEnv(tool, container, [KEY]);
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
    if (tool.name === "podman") tool.run(["secret", "rm", CONTAINER_SECRET]);
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
      expect("the image's health check", JSON.parse(docker.ok(["image", "inspect", "--format", "{{json .Config.Healthcheck.Test}}", PRINTED.image])), LIVENESS_CHECK);
    });
  }
}

/** For Docker: the printed `docker compose` where Compose v2 is installed, else Debian's `docker-compose`. */
function composeCommand(docker: Engine): string {
  return docker.run(["compose", "version"]).code === 0 ? "docker compose" : "docker-compose";
}

/** One engine's section of the page, run block by block; then nothing it made may be left, not even an anonymous volume. */
async function engineSection(tool: Engine, compose: string): Promise<void> {
  const printed = blocks(section(SECTIONS[tool.name]));
  if (printed.length !== BLOCKS[tool.name]) return fail(`docs/deploy.md's "${SECTIONS[tool.name]}" has ${printed.length} sh blocks, not the ${BLOCKS[tool.name]} this test runs (image, stop, ${tool.name === "podman" ? "secrets, " : ""}stack up, stack down)`);
  const volumes = () => tool.ok(["volume", "ls", "--quiet"]).split("\n").filter((name) => name !== "");
  const before = new Set(volumes());
  await container(tool, printed.slice(0, 2));
  if (tool.name === "docker" && !anyFailed()) await containerKeys(tool, check);
  if (tool.name === "docker") await builders(tool, printed[0]!);
  // The stack tags the older checkout's image under the same name: this one is removed by its id too.
  const built = tool.run(["image", "inspect", "--format", "{{.Id}}", PRINTED.image]).stdout.trim();
  if (!anyFailed()) await stack(tool, run, printed.slice(2), compose);
  tool.run(["rmi", `${PRINTED.image}:latest`]);
  if (built !== "") tool.run(["rmi", built]);
  await check(`${tool.name}: the run left no volume behind`, () => {
    const left = volumes().filter((name) => !before.has(name));
    for (const name of left) tool.run(["volume", "rm", "--force", name]);
    expect("volumes left behind (now removed)", left, []);
  });
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
  await check("the page's podman and Docker commands, the compose ones too, give no secret in an environment variable (-e), only files", () => {
    const engineLines = [section("With Docker"), section("With podman"), section("Operating the compose stack"), section("Loading an export into the compose stack"), ...["Backups and their check", "A restore drill", "Upgrading without downtime", "A database outage"].map(section)]
      .flatMap((text) => blocks(text)).join("\n").split("\n").filter((text) => /^(podman |docker run |docker compose |docker-compose | {2})/.test(text));
    const given = engineLines.filter((text) => SECRET_IN_ENV.test(text));
    expect("lines giving a secret in the environment", given, []);
  });
  await images(docker, podman);
  if (!anyFailed()) {
    await engineSection(docker, composeCommand(docker));
    await engineSection(podman, "");
    await underSystemd(podman, run);
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
