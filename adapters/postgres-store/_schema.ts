/**
 * @module
 * The PostgreSQL store's tables: created on first open, and the schema version checked.
 */
import type { SqlClient } from "./sql-client.ts";

/** The schema version this code creates and reads. */
export const SCHEMA_VERSION = 1;

/**
 * Creates the tables on first open and checks the schema version. Several instances may start at once, and concurrent
 * `create table if not exists` can collide, so the work is done under a transaction-level
 * advisory lock.
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
    await tx`insert into animal_store (schema_version, last_pet_id) values (${SCHEMA_VERSION}, 0) on conflict do nothing`;
    const rows = await tx`select schema_version from animal_store`;
    return Number(rows[0]?.["schema_version"]);
  });
  if (version !== SCHEMA_VERSION) {
    throw new Error(
      `the database holds animal-store schema version ${version}; this version of animal-store reads version ${SCHEMA_VERSION}, so upgrade it`,
    );
  }
}

/** An arbitrary key that names this schema's setup lock among the database's advisory locks. */
const ADVISORY_LOCK_KEY = 7_086_514_322;
