/**
 * @module
 * One engine's compose stack, as docs/deploy.md prints it, on the image of an older checkout (this
 * one without its newest schema step, as the release before is to an upgrade): filled with pets by
 * "Loading an export" (a data file of 50, some keyed), a pet shared by both instances, Prometheus
 * scraping both; then what an operator does ("Operating the compose stack"), each instance stopping
 * with exit 0, down and up again with nothing lost. With Docker, the compose backup line as the page
 * printed it before, without `-p`, then fails loudly rather than back up another project's nothing.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openJsonFileStore } from "../../adapters/json-file-store/mod.ts";
import { OLDER_SCHEMA_VERSION, olderCheckout } from "../../test/older-checkout.ts";
import { waitFor } from "../../test/checks.ts";
import type { Engine } from "./engine.ts";
import type { Run } from "./common.ts";
import { answering, createPet, expect, expectFree, expectNoSecretInEnv, expectUnused, INSTANCES, KEY, petNames, POSTGRES_PASSWORD, PRINTED, STACK_PORTS, stackContainer } from "./common.ts";
import type { Stack } from "./operations.ts";
import { backups, BACKUP_SETTINGS, drill, outage, upgrade } from "./operations.ts";
import { stackKeys } from "./keys.ts";
import { blocks, inSession, ROOT, runPrinted, runPrintedAsync, section, splitBefore } from "./page.ts";

/** How many pets the data file the stack is loaded from holds; every fifth was created with an Idempotency-Key. */
const LOADED = 50;

/** How long the database is down in each engine's outage: the 30 s the issue asks with Docker, less with podman. */
const OUTAGE_SECONDS = { docker: 30, podman: 10 } as const;

/** What the stack's commands write in the checkout (all ignored by git), removed at the end: the key file by `removeKeyFiles`. */
const WRITTEN = ["pets.jsonl", "backup.jsonl", "deploy/postgres-password", "deploy/database-url", "deploy/drill-url"];

/** The podman secrets the page's podman commands make: the stack's, and the drill's (removed by its block unless it failed). */
const PODMAN_SECRETS = ["animal-store-api-keys", "animal-store-postgres-password", "animal-store-database-url", "animal-store-drill-url"];

/** The compose backup line docs/deploy.md printed before it named the project: it reached a project named `deploy`. */
const UNNAMED_BACKUP_LINE = "docker compose -f deploy/compose.yaml run --rm -T store-1 export > backup.jsonl";

/** Where the run keeps what it builds: the older checkout, its executable and the data file to load. */
const WORK = mkdtempSync(join(tmpdir(), "animal-store-deploy-"));
process.on("exit", () => rmSync(WORK, { recursive: true, force: true }));

let olderDist: string | undefined;
let loadedFile: string | undefined;

/** The folder holding the older checkout's executable, built once a run, to build its image from. */
function olderExecutable(): string {
  if (olderDist !== undefined) return olderDist;
  const checkout = olderCheckout(join(WORK, "older"), ROOT);
  const dist = join(WORK, "older-dist");
  mkdirSync(dist);
  const built = Bun.spawnSync([process.execPath, "build", "--compile", join(checkout, "adapters/server/start-bun.ts"), "--outfile", join(dist, "animal-store")], { cwd: checkout, stdout: "pipe", stderr: "pipe", timeout: 300_000 });
  if (built.exitCode !== 0) throw new Error(`bun build --compile of the older checkout exited ${built.exitCode}:\n${built.stderr}`);
  return (olderDist = dist);
}

/** A data file of `LOADED` pets, every fifth created with an Idempotency-Key, made once a run. */
async function dataFile(): Promise<string> {
  if (loadedFile !== undefined) return loadedFile;
  const path = join(WORK, "data", "pets.json");
  const store = await openJsonFileStore(path, { logger: { info: () => {}, warn: () => {} } });
  for (let i = 0; i < LOADED; i++) {
    const pet = { name: `loaded-${i}`, categoryId: i % 3 };
    if (i % 5 === 0) await store.createWithKey!(pet, { client: "c".repeat(64), key: `order-${i}` });
    else await store.create(pet);
  }
  await store.close();
  return (loadedFile = path);
}

/** The engine's block of "Loading an export into the compose stack" that loads, and the one that exports. */
function loadingBlocks(tool: Engine): { load: string; exportOnce: string } {
  const found = blocks(section("Loading an export into the compose stack"));
  if (found.length !== 4) throw new Error(`"Loading an export into the compose stack" has ${found.length} sh blocks, not 4 (Docker's and podman's load, then export)`);
  const [load, exportOnce] = tool.name === "docker" ? [found[0]!, found[2]!] : [found[1]!, found[3]!];
  return { load, exportOnce };
}

/**
 * The page's stack for one engine; `printed` is its up and down blocks (with podman, after the block
 * that makes the secrets, once), `compose` the Compose command Docker's run with.
 */
export async function stack(tool: Engine, run: Run, printed: readonly string[], compose: string): Promise<void> {
  const { check, timed, anyFailed } = run;
  const named = (block: string) => block.replaceAll("docker compose ", `${compose} `);
  const [secrets = "", up = "", down = ""] = (tool.name === "podman" ? printed : ["", ...printed]).map(named);
  const env = { ...tool.env, ...BACKUP_SETTINGS };
  const session = (block: string) => inSession([up], named(block));
  const ops: Stack = { tool, run, printed: (block, timeoutMs) => runPrintedAsync(session(block), env, timeoutMs) };
  const { load, exportOnce } = loadingBlocks(tool);
  const names = { docker: `(with ${compose})`, podman: "(podman's commands)" }[tool.name];
  const stackNames = ["postgres", "backup", "store-1", "store-2", "prometheus"].map((service) => `${PRINTED.project}-${service}`);
  const started = performance.now();
  let ran = false;
  let olderImage = "";
  try {
    await timed(`${tool.name} stack up`, `${tool.name}: the page's stack starts as printed ${names} on the older checkout's image (schema ${OLDER_SCHEMA_VERSION}), filled with ${LOADED} pets by the page's loading lines`, async () => {
      expectUnused(tool, tool.name === "podman" ? stackNames : [], [PRINTED.pgdata, PRINTED.backups]);
      const taken = tool.name === "podman" ? PODMAN_SECRETS.filter((name) => tool.run(["secret", "inspect", name]).code === 0) : [];
      if (taken.length > 0) throw new Error(`podman already has the secrets ${taken.join(", ")}, not made by this run: remove them to run the deploy test`);
      await expectFree(STACK_PORTS);
      tool.ok(["build", ...(tool.name === "podman" ? ["--format", "docker"] : []), "--tag", PRINTED.image, "--file", "deploy/Containerfile", olderExecutable()], 300_000);
      olderImage = tool.ok(["image", "inspect", "--format", "{{.Id}}", PRINTED.image]);
      ran = true;
      if (secrets !== "") runPrinted(secrets, env);
      const loading = session(load.replaceAll("data/pets.json", await dataFile()));
      // Docker's loading lines start the stack themselves (and the stack's line then changes nothing), once
      // the stack's block has made the key file its instances read; podman's load into the stack up and empty.
      if (tool.name === "docker") runPrinted(`${splitBefore(up, `${compose} `)[0]}\n${loading}`, env, 600_000);
      runPrinted(up, env, 600_000);
      if (tool.name === "podman") runPrinted(loading, env, 600_000);
      for (const service of ["store-1", "store-2"]) {
        const said = tool.logs(stackContainer(tool, service));
        if (!said.includes('opened PostgreSQL database "pets" on postgres:5432')) throw new Error(`${service} did not open the database:\n${said}`);
      }
    });
    if (!ran || anyFailed()) return;
    await noSecretInEnv(tool, run, "started");
    await check(`${tool.name}: the ${LOADED} loaded pets are listed by both instances, and a pet created through store-1 is listed by store-2`, async () => {
      await answering(`${INSTANCES[1]}/v1`);
      const loaded = Array.from({ length: LOADED }, (_, i) => `loaded-${i}`);
      expect("store-1's pets", await petNames(`${INSTANCES[0]}/v1`), loaded);
      await createPet(`${INSTANCES[0]}/v1`, "Shared");
      expect("store-2's pets", await petNames(`${INSTANCES[1]}/v1`), [...loaded, "Shared"]);
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
    if (anyFailed()) return;
    const backup = await backups(ops);
    await check(`${tool.name}: the page's one-off export line writes the same bytes as the newest scheduled backup`, async () => {
      await ops.printed(exportOnce);
      expect("the export, as the backup", readFileSync(join(ROOT, "backup.jsonl"), "utf8") === backup, true);
    });
    await upgrade(ops);
    await outage(ops, OUTAGE_SECONDS[tool.name]);
    await drill(ops);
    await noSecretInEnv(tool, run, "upgraded, its instances and backup service made again");
    await check(`${tool.name}: stopping the instances, each prints stopped and exits 0`, () => {
      for (const service of ["store-1", "store-2"]) {
        const container = stackContainer(tool, service);
        tool.ok(["stop", "--time", "10", container], 30_000);
        expect(`${service}'s exit code`, tool.ok(["inspect", "--format", "{{.State.ExitCode}}", container]), "0");
        if (!/^stopped$/m.test(tool.logs(container))) throw new Error(`${service}: no "stopped" in its logs`);
      }
    });
    await check(`${tool.name}: the page's down, then up again: the same pets, through both instances`, async () => {
      const before = await petNamesOf(tool);
      runPrinted(inSession([up], down), env, 120_000);
      // The docker block starts the stack again itself; for podman the page says to run the up block again.
      if (tool.name === "podman") runPrinted(up, env, 600_000);
      await answering(`${INSTANCES[0]}/v1`);
      expect("store-1's pets", await petNames(`${INSTANCES[0]}/v1`), before);
      expect("store-2's pets", await petNames(`${INSTANCES[1]}/v1`), before);
    });
  } finally {
    if (ran) removeStack(tool, compose, up, env, stackNames);
    if (tool.name === "podman") for (const name of PODMAN_SECRETS) tool.run(["secret", "rm", name]);
    // Untagged once the upgrade tagged the new one: removed by its id.
    const removed = olderImage === "" ? undefined : tool.run(["rmi", olderImage]);
    if (removed !== undefined && removed.code !== 0) console.log(`  ${tool.name} rmi ${olderImage}: ${removed.stderr.trim()}`);
    for (const name of WRITTEN) rmSync(join(ROOT, name), { force: true });
    run.times.push(`${tool.name} compose checks ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  if (tool.name === "docker") await unnamedProject(tool, run, compose, up, env);
}

/**
 * The check that no container of the stack, as it stands `when`, holds a secret in its environment: with
 * Docker every service's container, `migrate`'s (exited) too; podman's `migrate` is a `run --rm`.
 */
async function noSecretInEnv(tool: Engine, run: Run, when: string): Promise<void> {
  const services = ["postgres", ...(tool.name === "docker" ? ["migrate"] : []), "store-1", "store-2", "backup", "prometheus"];
  await run.check(`${tool.name}: every container of the stack, ${when}, got its secrets as files: ${tool.name} inspect shows no key, password or database URL in its environment`, () => {
    for (const service of services) expectNoSecretInEnv(tool, stackContainer(tool, service), [KEY, POSTGRES_PASSWORD]);
  });
}

/** The pets the stack holds, read through store-1's database as the instances were stopped: from the database itself. */
async function petNamesOf(tool: Engine): Promise<string[]> {
  const rows = tool.ok(["exec", stackContainer(tool, "postgres"), "psql", "--username=pets", "--dbname=pets", "--tuples-only", "--no-align", "--command=select name from pets order by id"]);
  return rows.split("\n").filter((name) => name !== "");
}

/** Removes what the run made of the stack: its containers, network and volumes. */
function removeStack(tool: Engine, compose: string, up: string, env: Record<string, string | undefined>, containers: readonly string[]): void {
  if (tool.name === "docker") {
    runPrinted(inSession([up], `${compose} -p ${PRINTED.project} -f deploy/compose.yaml down --volumes --timeout 10`), env, 120_000);
    return;
  }
  // --ignore: a container the run never got to make (Prometheus, after a failure) must not keep the others.
  tool.run(["rm", "--force", "--ignore", "--time", "10", ...containers]);
  tool.run(["network", "rm", PRINTED.project]);
  for (const volume of [PRINTED.pgdata, PRINTED.backups]) tool.run(["volume", "rm", "--force", volume]);
}

/**
 * The compose backup line as the page printed it before it named the project, after the stack's lines that
 * make the secret files: Compose made a project
 * named after the folder, `deploy`, whose new database the export now refuses as holding no pet, exit 1
 * and nothing written, where it used to write an empty backup and exit 0. Its project is removed after.
 */
async function unnamedProject(tool: Engine, run: Run, compose: string, up: string, env: Record<string, string | undefined>): Promise<void> {
  // The stack's block makes the secret files first, as in the user's checkout.
  const line = `${splitBefore(up, `${compose} `)[0]}\n${UNNAMED_BACKUP_LINE.replace("docker compose ", `${compose} `)}`;
  try {
    await run.timed(`${tool.name} unnamed project`, `${tool.name}: the compose backup line without -p, as the page printed it before, reaches a project named deploy and fails loudly: exit 1, "holds no pet", an empty file`, async () => {
      const refused = await runPrintedAsync(line, env).then(() => undefined, (error: Error) => error.message);
      if (refused === undefined) throw new Error("the backup of the unnamed project exited 0");
      if (!refused.includes('the PostgreSQL database "pets" on postgres:5432 holds no pet, so a backup of it would restore nothing')) throw new Error(refused);
      expect("the backup written", readFileSync(join(ROOT, "backup.jsonl"), "utf8"), "");
    });
  } finally {
    runPrinted(`${compose} -p deploy -f deploy/compose.yaml down --volumes --timeout 10`, env, 120_000);
    for (const name of WRITTEN) rmSync(join(ROOT, name), { force: true });
  }
}
