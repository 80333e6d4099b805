/**
 * @module
 * The rate-limit counter contract (`rateCounterChecks` of `animal-store/rate-limit`) on every counter
 * store of the project: the memory one, and PostgreSQL's with both clients it supports, each check
 * on a new database. Then what only PostgreSQL's shows: its rows hold no key, a flood of new
 * addresses from several instances at once keeps the table within its bound, and rows whose bucket
 * is full again go without a full-table scan.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import postgres from "postgres";
import type { SqlClient, SqlQuery } from "../adapters/postgres-store/mod.ts";
import { openPostgresRateCounters, openPostgresStore, SCHEMA_VERSION } from "../adapters/postgres-store/mod.ts";
import { addToRows, purgeFullBuckets } from "../adapters/postgres-store/_rate-counters.ts";
import { createMemoryCounters, rateCounterChecks } from "../src/plugs/rate-limit/mod.ts";
import { postgresServer } from "./postgres-server.ts";

/** The clients a user may pass in, each made for a database URL. */
const CLIENTS: Record<string, (url: string) => { sql: SqlClient; end(): Promise<unknown> }> = {
  "Bun SQL": (url) => {
    const sql = new SQL(url);
    return { sql, end: () => sql.close() };
  },
  "postgres.js": (url) => {
    const sql = postgres(url, { onnotice: () => {} });
    return { sql, end: () => sql.end({ timeout: 1 }) };
  },
};

/** Every client opened here, closed once the file's tests are done. */
const opened: { end(): Promise<unknown> }[] = [];
afterAll(async () => void (await Promise.all(opened.map((client) => client.end()))));

/** A client on a new database. */
async function newDatabase(client: string): Promise<{ sql: SqlClient; url: string }> {
  const url = await (await postgresServer()).createDatabase();
  const connection = CLIENTS[client]!(url);
  opened.push(connection);
  return { sql: connection.sql, url };
}

describe("memory counter contract", () => {
  for (const check of rateCounterChecks(async () => createMemoryCounters())) test(check.name, check.run, 30_000);
});

for (const client of Object.keys(CLIENTS)) {
  describe(`PostgreSQL (${client}) counter contract`, () => {
    for (const check of rateCounterChecks(async () => openPostgresRateCounters({ sql: (await newDatabase(client)).sql }))) test(check.name, check.run, 30_000);
  });
}

/** A client of one connection on `url`, closed with the file's others. */
function admin(url: string): SQL {
  const sql = new SQL(url, { max: 1 });
  opened.push({ end: () => sql.close() });
  return sql;
}

/** Runs a statement of `run` under `explain (analyze, format json)`: the plan it was executed with. */
async function executedPlan(sql: SQL, run: (query: SqlQuery) => Promise<unknown>): Promise<string> {
  let plan = "";
  const explaining: SqlQuery = async (strings, ...values) => {
    const text = ["explain (analyze, format json) " + strings[0], ...strings.slice(1)];
    const rows = await sql(Object.defineProperty(text, "raw", { value: text }) as unknown as TemplateStringsArray, ...values);
    plan = JSON.stringify(rows[0]);
    return [];
  };
  await run(explaining);
  return plan;
}

describe("PostgreSQL's rate-limit counts", () => {
  test("a version-1 database, from before the shared counts, is upgraded to version 2 when opened by two instances at once: its pets are kept and the counts work", async () => {
    const url = await (await postgresServer()).createDatabase();
    const sql = admin(url);
    const store = await openPostgresStore({ sql });
    const pet = await store.create({ name: "Rex", categoryId: 1 });
    await store.close();
    // What version 1 was: every table but the counts'.
    await sql`drop table animal_store_rate_limits`;
    await sql`update animal_store set schema_version = 1`;
    const [one, two] = [CLIENTS["Bun SQL"]!(url), CLIENTS["postgres.js"]!(url)];
    opened.push(one, two);
    const [reopened, counters] = await Promise.all([openPostgresStore({ sql: one.sql }), openPostgresRateCounters({ sql: two.sql })]);
    expect(SCHEMA_VERSION).toBe(2);
    expect((await sql`select schema_version from animal_store`)[0].schema_version).toBe(2);
    expect(await reopened.get(pet.id)).toEqual(pet);
    const bounds = { maxAddresses: 10, overflowId: "address:overflow" };
    const [taken = 0] = await counters.exchange([{ id: "key:a", address: false, costMs: 60_000, sinceMs: 0 }], bounds);
    expect(taken).toBeGreaterThan(59_000);
    expect(taken).toBeLessThanOrEqual(60_000);
    await reopened.close();
  });

  test("a database that refuses writes (default_transaction_read_only, as a standby) makes every exchange reject, one without uses too", async () => {
    const { url } = await newDatabase("Bun SQL");
    const sql = admin(url);
    const counters = await openPostgresRateCounters({ sql });
    // The client's one connection from now on, as a standby's would be.
    await sql`set default_transaction_read_only = on`;
    const bounds = { maxAddresses: 10, overflowId: "address:overflow" };
    for (const uses of [[{ id: "key:a", address: false, costMs: 1000, sinceMs: 0 }], []]) {
      const error = await counters.exchange(uses, bounds).then(() => undefined, (failure: unknown) => failure);
      expect(String(error)).toContain("read-only transaction");
    }
  });

  test("a flood of new addresses from three instances at once keeps the table within maxAddresses: the rest go to the one overflow row", async () => {
    const { url } = await newDatabase("Bun SQL");
    const instances = await Promise.all([1, 2, 3].map(async () => openPostgresRateCounters({ sql: admin(url) })));
    const bounds = { maxAddresses: 500, overflowId: "address:overflow" };
    await Promise.all(instances.map(async (counters, i) => {
      for (let batch = 0; batch < 10; batch++) {
        const uses = Array.from({ length: 100 }, (_, n) => ({ id: `address:10.${i}.${batch}.${n}`, address: true, costMs: 60_000, sinceMs: 0 }));
        await counters.exchange(uses, bounds);
      }
    }));
    const sql = admin(url);
    const [{ addresses, overflow }] = await sql`select count(*) filter (where address)::int as addresses, max(full_at) filter (where id = 'address:overflow') - extract(epoch from now()) * 1000 as overflow from animal_store_rate_limits`;
    expect(addresses).toBe(500);
    // 3,000 addresses of a minute each, 500 with a row of their own: the overflow holds the other 2,500 minutes.
    expect(overflow).toBeGreaterThan(2499 * 60_000);
  }, 60_000);

  test("rows whose bucket is full again are deleted through the index on full_at, never by reading the table, and an exchange finds its rows by their key", async () => {
    const { url } = await newDatabase("Bun SQL");
    await openPostgresRateCounters({ sql: admin(url) });
    const sql = admin(url);
    // 20,000 rows: half of them full again (an hour ago), half taken for an hour.
    await sql`insert into animal_store_rate_limits (id, address, full_at)
      select 'address:' || n, true, extract(epoch from now()) * 1000 + (case when n % 2 = 0 then -1 else 1 end) * 3600000 from generate_series(1, 20000) n`;
    await sql`analyze animal_store_rate_limits`;
    const purge = await executedPlan(sql, purgeFullBuckets);
    expect(purge).toContain('"Index Name":"animal_store_rate_limits_full_at"');
    expect(purge).not.toContain("Seq Scan");
    expect((await sql`select count(*)::int as left from animal_store_rate_limits`)[0].left).toBe(19_000);
    const uses = [1, 3, 5].map((n) => ({ id: `address:${n}`, address: true, costMs: 1000, sinceMs: 0 }));
    const exchange = await executedPlan(sql, (query) => addToRows(query, uses));
    expect(exchange).toContain('"Index Name":"animal_store_rate_limits_pkey"');
    expect(exchange).not.toContain("Seq Scan");
  }, 60_000);
});
