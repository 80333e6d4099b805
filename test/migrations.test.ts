/**
 * @module
 * The schema as numbered steps, against a real PostgreSQL server with both clients: applied in one go
 * or step by step to the same tables, once when two instances open together, never undone; a dry
 * run whose printed script does what `migrate` does; a store opened with `migrate: false` (the server's
 * `MIGRATE=off`) refusing, in one line, a schema it cannot use, and serving as a role that may only
 * read and write the tables. Then `animal-store migrate` as a process, for PostgreSQL and the data file.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { SQL } from "bun";
import postgres from "postgres";
import type { SqlClient } from "../adapters/postgres-store/mod.ts";
import { migrateSchema, openPostgresStore, readSchemaState, SCHEMA_VERSION } from "../adapters/postgres-store/mod.ts";
import { SCHEMA_STEPS } from "../adapters/postgres-store/_schema.ts";
import { importPets } from "../src/mod.ts";
import type { CommandRuntime } from "./commands.ts";
import { waitFor } from "./checks.ts";
import { runCommand } from "./commands.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { tempDataFile } from "./temp.ts";

const quiet = { warn: () => {} };

/** The clients a user may pass in, each for a database URL, closed by `end`. */
const CLIENTS = {
  "Bun SQL": (url: string) => {
    const sql = new SQL(url, { max: 2 });
    return { sql: sql satisfies SqlClient, end: () => sql.close() };
  },
  "postgres.js": (url: string) => {
    const sql = postgres(url, { max: 2, onnotice: () => {} });
    return { sql: sql satisfies SqlClient, end: () => sql.end({ timeout: 1 }) };
  },
} as const;

/** Runs `body` with a client of `kind` on a new database. */
async function withDatabase<T>(kind: keyof typeof CLIENTS, body: (sql: SqlClient, url: string) => Promise<T>): Promise<T> {
  const url = await (await postgresServer()).createDatabase();
  const { sql, end } = CLIENTS[kind](url);
  try {
    return await body(sql, url);
  } finally {
    await end();
  }
}

/** Every table, column, constraint and index the database holds, as text: two schemas made alike read alike. */
async function schemaOf(sql: SqlClient): Promise<string[]> {
  const rows = await sql`
    select 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
      from information_schema.columns where table_schema = 'public'
    union all select 'constraint ' || conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
    union all select 'index ' || indexdef from pg_indexes where schemaname = 'public'
    order by 1`;
  return rows.map((row) => String(row["line"]));
}

test("the steps are numbered by their place, each says what it is for, and this code's version is the last", () => {
  expect(SCHEMA_VERSION).toBe(SCHEMA_STEPS.length);
  for (const step of SCHEMA_STEPS) {
    expect(step.summary.length).toBeGreaterThan(10);
    expect(step.statements.length).toBeGreaterThan(0);
  }
  // A step keeps older code working or says it does not: never newer than itself.
  SCHEMA_STEPS.forEach((step, i) => expect(step.compatibleFrom).toBeLessThanOrEqual(i + 1));
});

for (const kind of Object.keys(CLIENTS) as (keyof typeof CLIENTS)[]) {
  describe(`migrateSchema (${kind})`, () => {
    test("a new database gets every step once; a second run applies nothing", async () => {
      await withDatabase(kind, async (sql) => {
        const first = await migrateSchema(sql);
        expect(first.from).toEqual({ version: 0, compatibleFrom: 0 });
        expect(first.to.version).toBe(SCHEMA_VERSION);
        expect(first.steps.map((step) => step.version)).toEqual(SCHEMA_STEPS.map((_, i) => i + 1));
        const second = await migrateSchema(sql);
        expect(second.steps).toEqual([]);
        expect(second.from).toEqual(second.to);
        expect(await readSchemaState(sql)).toEqual(first.to);
      });
    });

    test("step by step, one version at a time, makes the same tables as all at once", async () => {
      const stepwise = await withDatabase(kind, async (sql) => {
        for (let version = 1; version <= SCHEMA_VERSION; version++) {
          const migration = await migrateSchema(sql, { to: version });
          expect(migration.steps.map((step) => step.version)).toEqual([version]);
          expect((await readSchemaState(sql)).version).toBe(version);
        }
        return await schemaOf(sql);
      });
      const atOnce = await withDatabase(kind, async (sql) => (await migrateSchema(sql), await schemaOf(sql)));
      expect(stepwise).toEqual(atOnce);
    });

    test("a dry run writes nothing, and the script it reports, run as it is, does what migrate does", async () => {
      const migrated = await withDatabase(kind, async (sql) => (await migrateSchema(sql), await schemaOf(sql)));
      await withDatabase(kind, async (sql, url) => {
        await migrateSchema(sql, { to: 1 });
        const plan = await migrateSchema(sql, { dryRun: true });
        expect(plan.steps.map((step) => step.version)).toEqual(SCHEMA_STEPS.slice(1).map((_, i) => i + 2));
        expect((await readSchemaState(sql)).version).toBe(1);
        const script = [...plan.around.before, ...plan.steps.flatMap((step) => step.statements), ...plan.around.after].join(";\n");
        const admin = new SQL(url, { max: 1 });
        try {
          await admin.unsafe(script);
        } finally {
          await admin.close();
        }
        expect(await schemaOf(sql)).toEqual(migrated);
        expect((await readSchemaState(sql)).version).toBe(SCHEMA_VERSION);
      });
    });

    test("two migrations at once apply each step once; a version this code does not know is refused", async () => {
      await withDatabase(kind, async (sql, url) => {
        const other = CLIENTS[kind](url);
        try {
          const both = await Promise.all([migrateSchema(sql), migrateSchema(other.sql)]);
          expect(both.map((migration) => migration.steps.length).sort()).toEqual([0, SCHEMA_VERSION]);
        } finally {
          await other.end();
        }
        await expect(migrateSchema(sql, { to: SCHEMA_VERSION + 1 })).rejects.toThrow(`there is no schema version ${SCHEMA_VERSION + 1}: this animal-store knows versions 1 to ${SCHEMA_VERSION}`);
        await expect(migrateSchema(sql, { to: 0 })).rejects.toThrow(RangeError);
      });
    });
  });

  describe(`openPostgresStore with migrate: false (${kind})`, () => {
    test("refuses a database without the tables, or at an older version, in one line naming both versions and the command", async () => {
      await withDatabase(kind, async (sql) => {
        const refusal = async () => String(await openPostgresStore({ sql, migrate: false, logger: quiet }).catch((error: Error) => error));
        expect(await refusal()).toBe("Error: Cannot open the PostgreSQL store: the database holds no animal-store tables (schema version 0); " +
          "apply the schema first with animal-store migrate (or migrateSchema in code): this store was opened not to change it (MIGRATE=off, migrate: false)");
        expect((await readSchemaState(sql)).version).toBe(0);
        await migrateSchema(sql, { to: SCHEMA_VERSION - 1 });
        expect(await refusal()).toContain(`the database is at schema version ${SCHEMA_VERSION - 1}; this animal-store needs version ${SCHEMA_VERSION}; apply the schema first`);
        expect((await readSchemaState(sql)).version).toBe(SCHEMA_VERSION - 1);
        await migrateSchema(sql);
        const store = await openPostgresStore({ sql, migrate: false, logger: quiet });
        expect((await store.create({ name: "Rex", categoryId: 1 })).id).toBe(1);
        await store.close();
      });
    });

    test("a newer schema that says this code may use it is used, and said once; one that says it may not is refused", async () => {
      await withDatabase(kind, async (sql) => {
        await migrateSchema(sql);
        const newer = SCHEMA_VERSION + 1;
        await sql`update animal_store set schema_version = ${newer}, compatible_from = ${SCHEMA_VERSION}`;
        const warned: string[] = [];
        for (const migrate of [false, true]) {
          const store = await openPostgresStore({ sql, migrate, logger: { warn: (line: string) => warned.push(line) } });
          expect((await store.create({ name: "Rex", categoryId: 1 })).name).toBe("Rex");
          await store.close();
        }
        expect(warned).toEqual(Array(2).fill(`animal-store: the database is at schema version ${newer}, newer than this animal-store's ${SCHEMA_VERSION}, ` +
          `and says animal-store from schema version ${SCHEMA_VERSION} may still use it: replace this instance with the newer version`));
        expect((await readSchemaState(sql)).version).toBe(newer);
        await sql`update animal_store set compatible_from = ${newer}`;
        for (const migrate of [false, true]) {
          const error = await openPostgresStore({ sql, migrate, logger: quiet }).catch((failure: Error) => failure);
          expect(String(error)).toContain(`Cannot open the PostgreSQL store: the database is at schema version ${newer}, which animal-store may use only ` +
            `from the version that knows schema version ${newer}; this one knows version ${SCHEMA_VERSION}, so upgrade it`);
        }
      });
    });
  });
}

describe("least privilege: the server's role may only read and write the tables", () => {
  test("a role granted SELECT, INSERT, UPDATE and DELETE (by default privileges, so tables of later steps too) serves, imports and exports with migrate: false", async () => {
    const url = new URL(await (await postgresServer()).createDatabase());
    const admin = new SQL(url.href, { max: 1 });
    const owner = `owner_${process.pid}`;
    const app = `app_${process.pid}`;
    try {
      await admin.unsafe(`create role ${owner} login; create role ${app} login; grant create on schema public to ${owner}`);
      await admin.unsafe(`alter default privileges for role ${owner} in schema public grant select, insert, update, delete on tables to ${app}`);
      const asRole = (role: string) => Object.assign(new URL(url.href), { username: role }).href;
      const ownerSql = new SQL(asRole(owner), { max: 1 });
      const appSql = new SQL(asRole(app), { max: 2 });
      try {
        // The app's role may not make the tables: only the owner's migration does.
        expect(await openPostgresStore({ sql: appSql, logger: quiet }).catch((error: Error) => String(error))).toContain("permission denied");
        await migrateSchema(ownerSql, { to: 1 });
        await migrateSchema(ownerSql);
        const store = await openPostgresStore({ sql: appSql, migrate: false, logger: quiet });
        // With migrate on, a schema already current takes no privilege beyond reading and writing either.
        await (await openPostgresStore({ sql: appSql, logger: quiet })).close();
        const key = { client: "c".repeat(64), key: "k-1" };
        const first = await store.createWithKey!({ name: "Rex", categoryId: 1 }, key);
        expect((await store.createWithKey!({ name: "Rex", categoryId: 1 }, key)).replayed).toBe(true);
        const pets = [];
        for await (const moved of store.exportPets!()) pets.push(moved.pet);
        expect(pets).toEqual([first.pet]);
        await importPets(store, [{ pet: { id: 10, name: "Tom", categoryId: 2 } }], { append: true });
        expect((await store.get(10))?.name).toBe("Tom");
        expect(await store.health!()).toEqual({ ok: true });
        await store.close();
        // A schema change is still refused to it, as a role that may not own the tables.
        expect(await appSql`create table intruder (a int)`.then(() => "made", (error: Error) => String(error))).toContain("permission denied");
      } finally {
        await Promise.all([ownerSql.close(), appSql.close()]);
      }
    } finally {
      await admin.close();
    }
  });
});

describe("animal-store migrate", () => {
  for (const runtime of ["bun", "deno", "node"] as const satisfies readonly CommandRuntime[]) {
    test(`on ${runtime}: --dry-run prints the SQL and changes nothing, migrate applies each step once, and the server with MIGRATE=off serves only then`, async () => {
      const url = await (await postgresServer()).createDatabase();
      const env = { STORE: "postgres", DATABASE_URL: url };
      const dry = await runCommand(runtime, ["migrate", "--dry-run"], { env });
      expect(dry.code).toBe(0);
      const name = `the PostgreSQL database "${new URL(url).pathname.slice(1)}" on ${new URL(url).host}`;
      expect(dry.stdout.split("\n")[0]).toBe(`-- ${name} is at schema version 0; migrate would take it to schema version ${SCHEMA_VERSION}, running:`);
      expect(dry.stdout).toContain("create table if not exists pets (\n  id bigint primary key");
      expect(dry.stdout).toEndWith("commit;\n-- nothing was changed (--dry-run)\n");
      const refused = await runCommand(runtime, [], { env: { ...env, MIGRATE: "off", API_KEYS: "k" } });
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^animal-store: Cannot open the PostgreSQL store: the database holds no animal-store tables \(schema version 0\); apply the schema first with animal-store migrate/)]);
      const applied = await runCommand(runtime, ["migrate"], { env });
      expect(applied).toMatchObject({ code: 0, stdout: `${SCHEMA_STEPS.map((step, i) => `applied step ${i + 1}: ${step.summary}\n`).join("")}${name} is at schema version ${SCHEMA_VERSION} (was 0)\n` });
      expect((await runCommand(runtime, ["migrate"], { env })).stdout).toBe(`${name} is at schema version ${SCHEMA_VERSION}: nothing to do (this animal-store's version)\n`);
      await using server = await startServer(runtime, { ...env, MIGRATE: "off", API_KEYS: "k" });
      const created = await fetch(`${server.url}/pets`, { method: "POST", headers: { authorization: "Bearer k", "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' });
      expect(created.status).toBe(201);
    }, 90_000);
  }

  test("a database at step 1, as version 1.0.0 left it: the dry run prints the rate limits' step 2, migrate adds their table, and a server with MIGRATE=off shares its rate limit there", async () => {
    const url = await (await postgresServer()).createDatabase();
    const env = { STORE: "postgres", DATABASE_URL: url };
    expect(await runCommand("bun", ["migrate", "--to", "1"], { env })).toMatchObject({ code: 0 });
    const limited = { ...env, MIGRATE: "off", API_KEYS: "k", RATE_LIMIT: "100/min" };
    expect((await runCommand("bun", [], { env: limited })).stderr).toContain("the database is at schema version 1; this animal-store needs version");
    const dry = await runCommand("bun", ["migrate", "--dry-run"], { env });
    expect(dry.stdout).toContain(`-- step 2: ${SCHEMA_STEPS[1]!.summary}\ncreate table if not exists animal_store_rate_limits (`);
    const applied = await runCommand("bun", ["migrate"], { env });
    expect(applied.stdout).toStartWith(`applied step 2: ${SCHEMA_STEPS[1]!.summary}\n`);
    const sql = new SQL(url, { max: 1 });
    try {
      expect((await sql`select to_regclass('animal_store_rate_limits') is not null as made`)[0].made).toBe(true);
      await using server = await startServer("bun", limited);
      expect((await fetch(`${server.url}/pets`, { headers: { authorization: "Bearer k" } })).status).toBe(200);
      // The server's limiter sends its counts to the table it shares with the other instances.
      await waitFor("a row of the shared counts", async () => Number((await sql`select count(*)::int as rows from animal_store_rate_limits`)[0].rows) || undefined, 20_000);
    } finally {
      await sql.close();
    }
  }, 60_000);

  test("--to stops at an older version, a server that needs the next refuses it, and a version there is not exits 2", async () => {
    const url = await (await postgresServer()).createDatabase();
    const env = { STORE: "postgres", DATABASE_URL: url };
    expect(await runCommand("bun", ["migrate", "--to", String(SCHEMA_VERSION - 1)], { env })).toMatchObject({ code: 0 });
    const refused = await runCommand("bun", [], { env: { ...env, MIGRATE: "off", API_KEYS: "k" } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the database is at schema version ${SCHEMA_VERSION - 1}; this animal-store needs version ${SCHEMA_VERSION}; apply the schema first`);
    for (const to of ["0", String(SCHEMA_VERSION + 1), "two"]) {
      const outcome = await runCommand("bun", ["migrate", "--to", to], { env });
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toStartWith("animal-store migrate: ");
    }
    const database = await runCommand("bun", ["migrate", "--store", "postgres"], { env: { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" } });
    expect(database.code).toBe(1);
    expect(database.stderr).toEndWith("; nothing was changed\n");
  }, 60_000);

  test("the data file: made at its one format version, never made by a server told MIGRATE=off, and a version this code cannot read refused", async () => {
    const path = tempDataFile();
    const off = await runCommand("bun", [], { env: { DATA_FILE: path, MIGRATE: "off", API_KEYS: "k" } });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain(`animal-store: ${path} does not exist, and with MIGRATE=off the server makes no data file: make it with animal-store migrate, or correct DATA_FILE`);
    expect(existsSync(path)).toBe(false);
    expect(await runCommand("bun", ["migrate", "--dry-run", "--data-file", path])).toMatchObject({
      code: 0,
      stdout: `${path} is at format version 0; migrate would take it to format version 1, running:\nstep 1: make ${path}, empty, with its header and secret\nnothing was changed (--dry-run)\n`,
    });
    expect(existsSync(path)).toBe(false);
    expect((await runCommand("bun", ["migrate", "--data-file", path])).stdout).toEndWith(`${path} is at format version 1 (was 0)\n`);
    expect((await runCommand("bun", ["migrate", "--data-file", path])).stdout).toBe(`${path} is at format version 1: nothing to do (this animal-store's version)\n`);
    await using server = await startServer("bun", { DATA_FILE: path, MIGRATE: "off", API_KEYS: "k" });
    expect((await fetch(`${server.url}/pets`, { headers: { authorization: "Bearer k" } })).status).toBe(200);
    await server.stop();
    writeFileSync(path, '{"format":"animal-store-pets","version":2}\n');
    expect(await runCommand("bun", ["migrate", "--data-file", path])).toMatchObject({
      code: 1,
      stderr: `animal-store migrate: ${path} names format version 2, which this animal-store cannot read (it reads version 1): upgrade animal-store; nothing was changed\n`,
    });
    expect((await runCommand("bun", ["migrate", "--store", "memory"])).stdout).toBe("the memory store keeps nothing between starts: there is nothing to migrate\n");
  }, 60_000);
});
