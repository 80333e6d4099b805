/**
 * @module
 * What an operator does with the compose stack after the first day, each engine's block of
 * docs/deploy.md's "Operating the compose stack" run as printed against a stack that holds pets: the
 * scheduled backups and their check, the upgrade with a client creating pets through both instances
 * all along, a database outage, and the restore drill.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SCHEMA_STEPS, SCHEMA_VERSION } from "../../adapters/postgres-store/_schema.ts";
import { waitFor } from "../../test/checks.ts";
import { OLDER_SCHEMA_VERSION } from "../../test/older-checkout.ts";
import { steadyClient } from "../../test/steady-client.ts";
import type { Engine } from "./engine.ts";
import type { Run } from "./common.ts";
import { createPet, expect, INSTANCES, KEY, petNames, PRINTED, probe, stackContainer } from "./common.ts";
import { blocks, ROOT, section, splitBefore } from "./page.ts";

/** How many backups the run keeps, and how often it makes one (the page's BACKUP_KEEP and BACKUP_EVERY). */
export const BACKUP_SETTINGS = { BACKUP_EVERY: "2s", BACKUP_KEEP: "3" } as const;

/** How an engine's stack runs a printed block: in the shell where the stack was started, with the run's settings. */
export interface Stack {
  readonly tool: Engine;
  readonly run: Run;
  /** Runs `block` as printed after the stack's `export` lines, without holding the event loop. */
  printed(block: string, timeoutMs?: number): Promise<string>;
}

/** The engine's block of each section of "Operating the compose stack": Docker's is the first, podman's the second. */
export function operationBlock(tool: Engine, heading: string): string {
  const found = blocks(section(heading));
  if (found.length !== 2) throw new Error(`docs/deploy.md's "${heading}" has ${found.length} sh blocks, not one for Docker and one for podman`);
  return found[tool.name === "docker" ? 0 : 1]!;
}

/** The backup service's container. */
function backupContainer(tool: Engine): string {
  return tool.name === "docker" ? stackContainer(tool, "backup") : `${PRINTED.project}-backup`;
}

/**
 * The scheduled backups: one checked with every pet in the service's log, at most BACKUP_KEEP kept,
 * and the page's lines that check the newest and copy it out; resolves with the copy.
 */
export async function backups({ tool, run, printed }: Stack): Promise<string> {
  let copy = "";
  await run.timed(`${tool.name} backups`, `${tool.name}: the scheduled backups check every pet in the service's log, keep the newest ${BACKUP_SETTINGS.BACKUP_KEEP}, and the page's lines check the newest and copy it out`, async () => {
    const count = (await petNames(`${INSTANCES[0]}/v1`)).length;
    const checked = new RegExp(`checked /backups/pets-\\S+\\.jsonl: ${count} pets`);
    await waitFor(`a checked backup of all ${count} pets in the backup service's log`, () => (checked.test(tool.logs(backupContainer(tool))) ? true : undefined), 60_000);
    const said = await printed(operationBlock(tool, "Backups and their check"));
    if (!said.includes(`checked /backups/latest.jsonl: ${count} pets`)) throw new Error(`the page's check of the newest backup said:\n${said}`);
    copy = readFileSync(join(ROOT, "backup.jsonl"), "utf8");
    expect("the copied backup's last line's count", JSON.parse(copy.trimEnd().split("\n").at(-1)!).end.count, count);
    const kept = tool.ok(["run", "--rm", "-v", `${PRINTED.backups}:/backups`, "--entrypoint", "ls", PRINTED.image, "/backups"]).split("\n").filter((name) => name.startsWith("pets-"));
    if (kept.length === 0 || kept.length > Number(BACKUP_SETTINGS.BACKUP_KEEP)) throw new Error(`the backups volume holds ${kept.length} backups: ${kept.join(", ")}`);
  });
  return copy;
}

/**
 * The upgrade from the older checkout's image to this one's, as printed, with a client creating pets
 * through both instances all along: `migrate` applies the newest step while both serve (no request
 * refused meanwhile), then each instance is replaced in turn (a create one refuses is sent to the
 * other, as a proxy does); no create is lost or doubled.
 */
export async function upgrade({ tool, run, printed }: Stack): Promise<void> {
  await run.timed(`${tool.name} upgrade`, `${tool.name}: the page's upgrade: migrate applies step ${SCHEMA_VERSION} under both older instances, serving every request, then each is replaced in turn, and a client creating pets all along loses none`, async () => {
    const client = steadyClient(() => INSTANCES.map((instance) => `${instance}/v1`), KEY, `${tool.name}-upgrade`);
    try {
      await client.more(10);
      const [migrate, replace] = splitBefore(operationBlock(tool, "Upgrading without downtime"), "for n in 1 2");
      const migrated = await printed(migrate, 600_000);
      for (const said of [`step ${SCHEMA_VERSION}: ${SCHEMA_STEPS.at(-1)!.summary}`, `applied step ${SCHEMA_VERSION}`, `is at schema version ${SCHEMA_VERSION} (was ${OLDER_SCHEMA_VERSION})`]) {
        if (!migrated.includes(said)) throw new Error(`the page's migrate lines did not say "${said}":\n${migrated}`);
      }
      await client.more(10);
      expect("creates refused while migrate ran under both instances", client.retried(), 0);
      await printed(replace, 600_000);
      await client.more(10);
    } finally {
      const { pets, lost } = await client.stop();
      expect("creates lost", lost, []);
      const names = await petNames(`${INSTANCES[1]}/v1`);
      const made = [...pets.values()];
      expect("acknowledged creates stored once each", made.filter((name) => names.indexOf(name) !== names.lastIndexOf(name) || !names.includes(name)), []);
    }
  });
}

/**
 * A database outage of `seconds` under the stack, with the page's lines: readiness 503 and liveness
 * 200 on both instances throughout, no container restarted and both still healthy; once the database
 * is back both are ready again and every create is answered 201.
 */
export async function outage({ tool, run, printed }: Stack, seconds: number): Promise<void> {
  await run.timed(`${tool.name} outage`, `${tool.name}: the database stopped for ${seconds} s as printed: readiness 503 and liveness 200 on both instances, none restarted nor unhealthy, then every create answered once it is back`, async () => {
    const lines = operationBlock(tool, "A database outage").split("\n");
    const [stop, start] = [lines.find((text) => / stop /.test(text)), lines.find((text) => / start /.test(text))];
    const curls = lines.filter((text) => text.startsWith("curl "));
    if (stop === undefined || start === undefined || curls.length !== 2) throw new Error(`"A database outage" for ${tool.name} has no stop, start and two curl lines`);
    const containers = ["store-1", "store-2"].map((service) => stackContainer(tool, service));
    const lives = () => containers.map((container) => tool.ok(["inspect", "--format", "{{.State.StartedAt}} {{.RestartCount}}", container]));
    const before = lives();
    const origins = [...INSTANCES];
    const probes = async (path: string) => await Promise.all(origins.map((origin) => probe(origin, path)));
    let last: number[] = [];
    await printed(stop);
    try {
      const stopped = Date.now();
      await waitFor("readiness 503 on both instances", async () => ((last = await probes("/health/ready")).every((status) => status === 503) ? true : undefined), 30_000)
        .catch((error: Error) => Promise.reject(new Error(`${error.message}: they answered ${last.join(", ")}`)));
      const said = await printed(curls.join("\n"));
      if (!/ 503 /.test(said) || !/ 200 /.test(said)) throw new Error(`the page's curl lines said:\n${said}`);
      while (Date.now() - stopped < seconds * 1000) {
        expect("liveness while the database is down", await probes("/health/live"), [200, 200]);
        expect("readiness while the database is down", await probes("/health/ready"), [503, 503]);
        await Bun.sleep(2000);
      }
      for (const container of containers) await tool.waitHealthy(container, 30_000);
    } finally {
      await printed(start);
    }
    await waitFor("readiness 200 on both instances", async () => ((last = await probes("/health/ready")).every((status) => status === 200) ? true : undefined), 60_000);
    for (let i = 0; i < 20; i++) await createPet(`${origins[i % 2]}/v1`, `${tool.name}-after-outage-${i}`);
    expect("the instances' start times and restart counts", lives(), before);
  });
}

/** The page's restore drill: the newest backup copied out and imported into a fresh database, whose export is the copy, byte for byte (`cmp`). */
export async function drill({ tool, run, printed }: Stack): Promise<void> {
  await run.timed(`${tool.name} drill`, `${tool.name}: the page's restore drill: the newest backup imported into a fresh database, whose export is the same bytes`, async () => {
    const said = await printed(operationBlock(tool, "A restore drill"), 300_000);
    if (!said.includes("they agree")) throw new Error(`the drill's import did not read back what it imported:\n${said}`);
  });
}
