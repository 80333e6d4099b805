/**
 * @module
 * A rolling upgrade of two instances on one PostgreSQL database, as docs/stores.md's "Upgrading"
 * says: both run the older checkout (its schema one step behind this one's, `older-checkout.ts`),
 * `animal-store migrate` applies the newest step while they serve, then each is replaced by this
 * checkout in turn. A client keeps creating through both all along, retrying on the other what an
 * instance refused without storing (as a proxy in front does): nothing is lost, nothing doubled.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { SCHEMA_STEPS, SCHEMA_VERSION } from "../adapters/postgres-store/_schema.ts";
import { runCommand } from "./commands.ts";
import { OLDER_SCHEMA_VERSION, olderCheckout } from "./older-checkout.ts";
import { postgresServer } from "./postgres-server.ts";
import type { ServerProcess } from "./server-process.ts";
import { startServer } from "./server-process.ts";
import { steadyClient } from "./steady-client.ts";
import { tempFolder } from "./temp.ts";

const KEY = "rolling-upgrade-key";

test("two instances of the older checkout are upgraded one at a time around migrate, and every create through them is acknowledged once", async () => {
  const older = olderCheckout(join(tempFolder(), "older"));
  const url = await (await postgresServer()).createDatabase();
  const env = { STORE: "postgres", DATABASE_URL: url, API_KEYS: KEY, MIGRATE: "off" };
  const name = `the PostgreSQL database "${new URL(url).pathname.slice(1)}" on ${new URL(url).host}`;
  expect((await runCommand("bun", ["migrate"], { env, checkout: older })).stdout).toEndWith(`${name} is at schema version ${OLDER_SCHEMA_VERSION} (was 0)\n`);
  const instances: ServerProcess[] = [await startServer("bun", env, { checkout: older }), await startServer("node", env, { checkout: older })];
  const client = steadyClient(() => instances.map((instance) => instance.url), KEY, "pet");
  try {
    await client.more(20);
    const dry = await runCommand("bun", ["migrate", "--dry-run"], { env });
    expect(dry.stdout).toContain(`-- step ${SCHEMA_VERSION}: ${SCHEMA_STEPS.at(-1)!.summary}\n`);
    // The newest step, applied under both older instances as they serve.
    const migrated = await runCommand("bun", ["migrate"], { env });
    expect(migrated.stdout).toBe(`applied step ${SCHEMA_VERSION}: ${SCHEMA_STEPS.at(-1)!.summary}\n${name} is at schema version ${SCHEMA_VERSION} (was ${OLDER_SCHEMA_VERSION})\n`);
    await client.more(20);
    // An older instance that restarts now (it crashed, its host rebooted) starts on the newer schema, and says so.
    await instances[0]!.stop();
    instances[0] = await startServer("bun", env, { checkout: older });
    expect(instances[0].output()).toContain(`the database is at schema version ${SCHEMA_VERSION}, newer than this animal-store's ${OLDER_SCHEMA_VERSION}`);
    await client.more(20);
    // Each replaced by this checkout in turn, the other serving meanwhile.
    for (const [i, runtime] of [[0, "bun"], [1, "node"]] as const) {
      await instances[i]!.stop();
      instances[i] = await startServer(runtime, env);
      await client.more(20);
    }
  } finally {
    const { pets, lost } = await client.stop();
    await Promise.all(instances.map((instance) => instance.stop()));
    expect(lost).toEqual([]);
    // Every acknowledged create is stored once: the ids acknowledged are the pets there, each name once.
    const sql = new Bun.SQL(url, { max: 1 });
    const rows = await sql`select id, name from pets order by id`;
    await sql.close();
    expect(new Map(rows.map((row: { id: unknown; name: string }) => [Number(row.id), row.name]))).toEqual(new Map([...pets].sort(([a], [b]) => a - b)));
  }
}, 120_000);
