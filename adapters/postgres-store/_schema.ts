/**
 * @module
 * The PostgreSQL store's tables: created on first open, moved up one version at a time by the steps
 * of `UPGRADES`, and the schema version checked.
 */
import type { SqlClient, SqlQuery } from "./sql-client.ts";

/**
 * Creates the tables on first open, upgrades a database of an older version, and checks the schema version.
 * Several instances may start at once, and concurrent `create table if not exists` can collide, so
 * the work is done under a transaction-level advisory lock.
 */
export async function createSchema(sql: SqlClient): Promise<void> {
  const version = await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${ADVISORY_LOCK_KEY})`;
    await tx`create table if not exists animal_store (
      singleton boolean primary key default true check (singleton),
      schema_version integer not null,
      last_pet_id bigint not null
    )`;
    // DDL takes no parameters: the bounds are MAX_EXACT_INTEGER (2^53 - 1) and NAME_MAX_LENGTH.
    await tx`create table if not exists pets (
      id bigint primary key check (id between 1 and 9007199254740991),
      name text not null check (char_length(name) between 1 and 200),
      category_id bigint not null check (category_id between -9007199254740991 and 9007199254740991),
      status text check (status in ('available', 'pending', 'sold'))
    )`;
    await tx`create index if not exists pets_available_id on pets (id) where status = 'available'`;
    await tx`create index if not exists pets_pending_id on pets (id) where status = 'pending'`;
    await tx`create index if not exists pets_sold_id on pets (id) where status = 'sold'`;
    await tx`create table if not exists pet_idempotency_keys (
      client text not null,
      key text not null,
      pet_id bigint not null,
      created_at timestamptz not null default now(),
      primary key (client, key)
    )`;
    await tx`create index if not exists pet_idempotency_keys_created_at on pet_idempotency_keys (created_at)`;
    // The secrets of JSON-file stores whose keys were imported (as client 'mac:<clientMac>'), kept 24 hours.
    await tx`create table if not exists animal_store_client_secrets (
      secret text primary key,
      until timestamptz not null
    )`;
    await tx`insert into animal_store (schema_version, last_pet_id) values (1, 0) on conflict do nothing`;
    const rows = await tx`select schema_version from animal_store`;
    return await upgrade(tx, Number(rows[0]?.["schema_version"]));
  });
  if (version !== SCHEMA_VERSION) {
    throw new Error(
      `the database holds animal-store schema version ${version}; this version of animal-store reads version ${SCHEMA_VERSION}, so upgrade it`,
    );
  }
}

/**
 * The steps from the tables above (version 1) to this code's, in order: step `i` moves a database of
 * version `i + 1` to `i + 2`, in the transaction that checks the version, so each runs once.
 */
const UPGRADES: readonly ((tx: SqlQuery) => Promise<void>)[] = [addSharedRateLimits];

/** The schema version this code creates and reads. */
export const SCHEMA_VERSION: number = 1 + UPGRADES.length;

/** Runs the steps a database of `version` lacks; resolves with the version it is at then. */
async function upgrade(tx: SqlQuery, version: number): Promise<number> {
  for (; version >= 1 && version < SCHEMA_VERSION; version++) {
    await UPGRADES[version - 1]!(tx);
    await tx`update animal_store set schema_version = ${version + 1}`;
  }
  return version;
}

/**
 * Version 1 to 2 (issue 51): the rate limits' shared counts (`_rate-counters.ts`), one row per key or
 * client address: when its bucket is full again, in milliseconds since the epoch on the database's
 * clock. The index on that moment finds the rows whose bucket is full again (which say nothing, and
 * go) without reading the table.
 */
async function addSharedRateLimits(tx: SqlQuery): Promise<void> {
  await tx`create table if not exists animal_store_rate_limits (
    id text primary key,
    address boolean not null,
    full_at double precision not null
  )`;
  await tx`create index if not exists animal_store_rate_limits_full_at on animal_store_rate_limits (full_at)`;
}

/** An arbitrary key that names this schema's setup lock among the database's advisory locks. */
const ADVISORY_LOCK_KEY = 7_086_514_322;
