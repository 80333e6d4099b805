/**
 * @module
 * The PostgreSQL store's schema as numbered steps, applied in order by `_migrate.ts` (`animal-store
 * migrate`, or the server as it opens unless `MIGRATE=off`). Step N is `SCHEMA_STEPS[N - 1]`, and a
 * database at schema version N has had steps 1 to N applied. Changing the schema is adding a step at
 * the end; a released step is never changed, since databases already hold what it made.
 *
 * A step should leave a database that the code of the version before it can still use (new tables,
 * columns with a default, indexes), so that instances of that code keep serving while it is applied
 * and until they are replaced one at a time: its `compatibleFrom` says which code may, and the
 * database keeps it (`compatible_from`, step 3) for that older code to read.
 */
import type { Row, SqlQuery } from "./sql-client.ts";

/** One statement of a step: DDL takes no parameters, so a dry run prints each as it would run. */
export type SchemaStatement = (sql: SqlQuery) => PromiseLike<readonly Row[]>;

/** One numbered change to the schema. */
export interface SchemaStep {
  /** What it is for, in one line (`animal-store migrate` prints it). */
  readonly summary: string;
  /**
   * The oldest schema version whose code may still use the database once this step is applied: the
   * version before it when the step only adds, its own when older code would go wrong.
   */
  readonly compatibleFrom: number;
  /** Its statements, in order, each run once, in one transaction with the other steps being applied. */
  readonly statements: readonly SchemaStatement[];
}

/** Every step, in order: step N is at index N - 1. */
export const SCHEMA_STEPS: readonly SchemaStep[] = Object.freeze([
  {
    summary: "the pets, their idempotency keys, the counter row, the secrets of imported JSON-file stores",
    compatibleFrom: 1,
    statements: [
      (sql) => sql`create table if not exists animal_store (
        singleton boolean primary key default true check (singleton),
        schema_version integer not null,
        last_pet_id bigint not null
      )`,
      // DDL takes no parameters: the bounds are MAX_EXACT_INTEGER (2^53 - 1) and NAME_MAX_LENGTH.
      (sql) => sql`create table if not exists pets (
        id bigint primary key check (id between 1 and 9007199254740991),
        name text not null check (char_length(name) between 1 and 200),
        category_id bigint not null check (category_id between -9007199254740991 and 9007199254740991),
        status text check (status in ('available', 'pending', 'sold'))
      )`,
      (sql) => sql`create index if not exists pets_available_id on pets (id) where status = 'available'`,
      (sql) => sql`create index if not exists pets_pending_id on pets (id) where status = 'pending'`,
      (sql) => sql`create index if not exists pets_sold_id on pets (id) where status = 'sold'`,
      (sql) => sql`create table if not exists pet_idempotency_keys (
        client text not null,
        key text not null,
        pet_id bigint not null,
        created_at timestamptz not null default now(),
        primary key (client, key)
      )`,
      (sql) => sql`create index if not exists pet_idempotency_keys_created_at on pet_idempotency_keys (created_at)`,
      // The secrets of JSON-file stores whose keys were imported (as client 'mac:<clientMac>'), kept 24 hours.
      (sql) => sql`create table if not exists animal_store_client_secrets (
        secret text primary key,
        until timestamptz not null
      )`,
      (sql) => sql`insert into animal_store (schema_version, last_pet_id) values (1, 0) on conflict do nothing`,
    ],
  },
  // The rate limits' shared counts (`_rate-counters.ts`), one row per key or client address: when its
  // bucket is full again, in milliseconds since the epoch on the database's clock. The index on that
  // moment finds the rows whose bucket is full again (which say nothing, and go) without reading the table.
  {
    summary: "the rate limits' counts the instances on one database share (animal_store_rate_limits)",
    compatibleFrom: 1,
    statements: [
      (sql) => sql`create table if not exists animal_store_rate_limits (
        id text primary key,
        address boolean not null,
        full_at double precision not null
      )`,
      (sql) => sql`create index if not exists animal_store_rate_limits_full_at on animal_store_rate_limits (full_at)`,
    ],
  },
  {
    summary: "the database says which older versions of animal-store may still use it (compatible_from), for rolling upgrades",
    compatibleFrom: 1,
    statements: [
      (sql) => sql`alter table animal_store add column if not exists compatible_from integer not null default 1`,
    ],
  },
] satisfies readonly SchemaStep[]);

/** The schema version this code creates and reads: its last step's. */
export const SCHEMA_VERSION: number = SCHEMA_STEPS.length;

/** The step that added `animal_store.compatible_from`: a database below it says nothing of older code. */
export const COMPATIBILITY_STEP = 3;
