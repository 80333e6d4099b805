/**
 * @module
 * A store that keeps pets in PostgreSQL, so several server instances can share one database.
 *
 * The caller passes in a tagged-template client: Bun's built-in `SQL` or postgres.js. This module
 * imports neither; it uses only tagged queries and `begin`, which both offer.
 *
 * ```ts
 * import { SQL } from "bun";
 * const store = await openPostgresStore({ sql: new SQL(process.env.DATABASE_URL) });
 * ```
 *
 * The instances on one database share a rate limit through `openPostgresRateCounters`
 * (`_rate-counters.ts`), passed to `rateLimit` of `animal-store/rate-limit` as its `counters`.
 *
 * - Ids become visible in id order, with no hole that fills later, so a client that walks pages and
 *   later resumes from its last cursor sees every pet exactly once. Each create transaction takes
 *   its ids from one counter row with `update … returning`: the row lock it holds until commit
 *   makes the next transaction wait, so transactions commit in id order.
 * - A create resolves only after its transaction committed. Creates that arrive while one is in
 *   flight go out together in the next transaction (group commit): one statement, one commit.
 * - A create with an idempotency key writes the key in the same statement as its pet; a key already
 *   taken (by any instance) makes that pet's row not be written, and the create resolves with the
 *   pet the key produced. Keys are deleted a day after their create, at most once an hour.
 * - Every call has a deadline; database errors that a retry may cure (connection lost, database
 *   down, timeouts, serialization failures) reject with `StoreUnavailableError` (503), and the
 *   next call tries again: the store recovers by itself when the database is back.
 * - A create whose own data the database refuses (a value it cannot store) fails alone: the
 *   other creates of its transaction are written again without it.
 */
import type { IdempotencyKey, KeyedCreate, NewPet, PageQuery, Pet, PetStatus, PetStore, StoreHealth } from "../../src/mod.ts";
import { MAX_EXACT_INTEGER, withId } from "../../src/mod.ts";
import { idsUsedUp } from "../../src/_internal/stores.ts";
import { againIfUndone, createFailure, describeError, isDataFailure, isTransientFailure, timeoutFailure, wasRolledBack, withDeadline } from "./_failures.ts";
import type { Row, SqlClient, SqlQuery } from "./sql-client.ts";
import { createSchema } from "./_schema.ts";
import { exportPets, importPets, MAC_PREFIX } from "./_move.ts";
import type { ClientMac } from "../_client-mac.ts";
import { macUnder } from "../_client-mac.ts";

export type { Row, SqlClient, SqlQuery, SqlValue } from "./sql-client.ts";

/** Options of the PostgreSQL store. */
export interface PostgresStoreOptions {
  /** The client to run queries with; the store never closes it. */
  readonly sql: SqlClient;
  /** How long any one call may take before it answers 503. Default 5000 ms. */
  readonly timeoutMs?: number;
  /** The most creates written in one transaction. Default 500. */
  readonly maxBatch?: number;
  /** Where the store says what an operator must know (once every id is handed out). Default `console`. */
  readonly logger?: Pick<Console, "warn">;
}

/** The schema version this code creates and reads. */
export { SCHEMA_VERSION } from "./_schema.ts";

/** Rate-limit counts the instances on one database share (`rateLimit(limit, { counters })` of `animal-store/rate-limit`). */
export type { PostgresRateCountersOptions } from "./_rate-counters.ts";
/** Creates the tables if needed and returns rate-limit counts kept in them, for `rateLimit`'s `counters`. */
export { openPostgresRateCounters } from "./_rate-counters.ts";

/** The SQLSTATE of a failed query's error, from either client (`23505`), or `undefined` (a lost connection has none). */
export { sqlState } from "./_failures.ts";

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_BATCH = 500;

/** Creates the schema if needed, checks its version, and returns the store. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PetStore> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    await withDeadline(createSchema(options.sql), timeoutMs);
  } catch (error) {
    throw new Error(`Cannot open the PostgreSQL store: ${describeError(error)}`, { cause: error });
  }
  const store = postgresStore(options.sql, timeoutMs, options.maxBatch ?? DEFAULT_MAX_BATCH, options.logger ?? console);
  await store.loadFileSecrets();
  return store;
}

/** A JSON-file store's secret whose keys were imported, as the MAC it makes, until it expires (ms since the epoch). */
interface FileSecret {
  readonly mac: ClientMac;
  readonly until: number;
}

interface PendingCreate {
  readonly pet: NewPet;
  readonly key: IdempotencyKey | undefined;
  readonly resolve: (outcome: KeyedCreate) => void;
  readonly reject: (error: Error) => void;
  /** Answers the create with a 503 when the database is too slow. */
  readonly deadline: ReturnType<typeof setTimeout>;
  /** Whether the create has been answered (by its commit or by its deadline). */
  settled: boolean;
  /** Whether it was sent: from then on, a failure leaves its outcome unknown. */
  sent: boolean;
}

/** How often old idempotency keys are deleted, at most. */
const KEY_PURGE_INTERVAL_MS = 60 * 60 * 1000;

function postgresStore(sql: SqlClient, timeoutMs: number, maxBatch: number, logger: Pick<Console, "warn">): PetStore & { loadFileSecrets(): Promise<void> } {
  let pending: PendingCreate[] = [];
  let fileSecrets: FileSecret[] = [];
  let usedUpSaid = false;

  /** Reads the secrets of imported JSON-file keys still in their 24 hours (at open, and after an import). */
  async function loadFileSecrets(): Promise<void> {
    const rows = await read(() => sql`select secret, (extract(epoch from until) * 1000)::bigint as until from animal_store_client_secrets where until > now()`, timeoutMs);
    fileSecrets = rows.map((row) => ({ mac: macUnder(String(row["secret"])), until: Number(row["until"]) }));
  }

  /** The pet an imported JSON-file key produced: looked up under the MAC each live secret makes of the client's digest. */
  async function importedReplay(key: IdempotencyKey): Promise<KeyedCreate | undefined> {
    for (const { mac, until } of fileSecrets) {
      if (until <= Date.now()) continue;
      const rows = await read(
        () => sql`select p.id, p.name, p.category_id, p.status from pet_idempotency_keys k join pets p on p.id = k.pet_id
          where k.client = ${MAC_PREFIX + mac(key.client)} and k.key = ${key.key}`,
        timeoutMs,
      );
      if (rows[0] !== undefined) return { pet: petFromRow(rows[0]), replayed: true };
    }
    return undefined;
  }
  let flushing: Promise<void> | undefined;
  let lastPurge = 0;

  async function flush(): Promise<void> {
    for (;;) {
      // Creates already answered by their deadline are dropped, so a slow database cannot make
      // the queue grow beyond what arrives within one deadline.
      pending = pending.filter((entry) => !entry.settled);
      if (pending.length === 0) break;
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      await writeBatch(batch);
    }
    flushing = undefined;
  }

  /** Refuses the creates no id was left for (503), saying so in the log once: nothing of them was written. */
  function refuseUsedUp(entries: readonly PendingCreate[]): void {
    if (entries.length === 0) return;
    const error = idsUsedUp();
    if (!usedUpSaid) logger.warn(`animal-store: the PostgreSQL store: ${error.message}; creates answer 503`);
    usedUpSaid = true;
    for (const entry of entries) settle(entry, () => entry.reject(error));
  }

  async function writeBatch(batch: PendingCreate[]): Promise<void> {
    for (const entry of batch) entry.sent = true;
    try {
      // Bounded too: a database that never answers (a network partition) must not stall every later create.
      const taken = await withDeadline(againIfUndone(() => insertPets(sql, batch), wasRolledBack), timeoutMs);
      if (taken.kind === "short") {
        // Fewer ids left than creates: those that fit are written, the rest refused (another instance may take some first).
        refuseUsedUp(batch.slice(taken.left));
        if (taken.left > 0) await writeBatch(batch.slice(0, taken.left));
        return;
      }
      const { firstId, inserted } = taken;
      batch.forEach((entry, i) => {
        const id = firstId + i;
        if (inserted.has(id)) settle(entry, () => entry.resolve({ pet: withId(id, entry.pet), replayed: false }));
        // Not inserted: its key was taken, by an earlier create or another in this batch. Looked
        // up without holding back the next batch.
        else void answerReplay(entry);
      });
    } catch (error) {
      // One create's own bad data fails the whole statement, which leaves nothing written: the
      // rest are written without it, by halves, until the create that fails alone is found.
      if (batch.length > 1 && isDataFailure(error)) {
        const half = Math.ceil(batch.length / 2);
        await writeBatch(batch.slice(0, half));
        await writeBatch(batch.slice(half));
        return;
      }
      const failure = createFailure(error, true);
      for (const entry of batch) settle(entry, () => entry.reject(failure));
    }
  }

  async function answerReplay(entry: PendingCreate): Promise<void> {
    try {
      const pet = await petOfKey(entry.key!);
      // The key's pet is gone (or the key just expired): the create is made anew, as in every store.
      const outcome = pet !== undefined ? { pet, replayed: true } : await enqueue(entry.pet, entry.key);
      settle(entry, () => entry.resolve(outcome));
    } catch (error) {
      settle(entry, () => entry.reject(createFailure(error, false)));
    }
  }

  /**
   * The pet a taken idempotency key produced, or `undefined` once that pet is gone from the table
   * (an operator's delete): the key is then freed, only if it still names that pet, so a create
   * that took it over meanwhile keeps it.
   */
  async function petOfKey(key: IdempotencyKey): Promise<Pet | undefined> {
    const rows = await read(
      () => sql`select k.pet_id, p.id, p.name, p.category_id, p.status from pet_idempotency_keys k left join pets p on p.id = k.pet_id
        where k.client = ${key.client} and k.key = ${key.key}`,
      timeoutMs,
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    if (row["id"] !== null && row["id"] !== undefined) return petFromRow(row);
    const gone = Number(row["pet_id"]);
    await read(() => sql`delete from pet_idempotency_keys where client = ${key.client} and key = ${key.key} and pet_id = ${gone}`, timeoutMs);
    return undefined;
  }

  /** Queues a create for the next transaction. */
  function enqueue(pet: NewPet, key: IdempotencyKey | undefined): Promise<KeyedCreate> {
    return new Promise((resolve, reject) => {
      const entry: PendingCreate = {
        pet,
        key,
        resolve,
        reject,
        deadline: setTimeout(() => settle(entry, () => reject(timeoutFailure(entry.sent, timeoutMs))), timeoutMs),
        settled: false,
        sent: false,
      };
      pending.push(entry);
      flushing ??= flush();
    });
  }

  /** Deletes keys older than a day, at most once an hour per store; a failure waits for the next time. */
  function purgeOldKeys(): void {
    const now = Date.now();
    if (now - lastPurge < KEY_PURGE_INTERVAL_MS) return;
    lastPurge = now;
    void read(() => sql`delete from pet_idempotency_keys where created_at < now() - interval '24 hours'`, timeoutMs).catch(() => {});
    void read(() => sql`delete from animal_store_client_secrets where until < now()`, timeoutMs).catch(() => {});
    fileSecrets = fileSecrets.filter((secret) => secret.until > now);
  }

  /** Answers a create once: by its commit, its failure, or its deadline, whichever comes first. */
  function settle(entry: PendingCreate, answer: () => void): void {
    if (entry.settled) return;
    entry.settled = true;
    clearTimeout(entry.deadline);
    answer();
  }

  return {
    async create(pet: NewPet): Promise<Pet> {
      return (await enqueue(pet, undefined)).pet;
    },
    async createWithKey(pet: NewPet, key: IdempotencyKey): Promise<KeyedCreate> {
      purgeOldKeys();
      // Only for a day after a JSON-file store's keys came in: one more query per keyed create.
      return (fileSecrets.length > 0 ? await importedReplay(key) : undefined) ?? await enqueue(pet, key);
    },
    loadFileSecrets,
    exportPets: () => exportPets(sql),
    // The secrets of JSON-file stores whose keys came in, still live: what exported `clientMac` keys were made under.
    clientMacSecrets: async () => (await read(() => sql`select secret from animal_store_client_secrets where until > now() order by secret`, timeoutMs)).map((row) => String(row["secret"])),
    importPets: async (pets, options = {}) => {
      const summary = await importPets(sql, pets, options);
      await loadFileSecrets().catch(() => {}); // a failure leaves the keys unmatched here until a restart, not the import undone
      return summary;
    },
    async get(id: number): Promise<Pet | undefined> {
      const rows = await read(() => sql`select id, name, category_id, status from pets where id = ${id}`, timeoutMs);
      return rows[0] === undefined ? undefined : petFromRow(rows[0]);
    },
    async list(query: PageQuery): Promise<Pet[]> {
      const { limit, after, status } = query;
      const rows = await read(
        () => status === undefined
          ? sql`select id, name, category_id, status from pets where id > ${after} order by id limit ${limit}`
          : PAGE_OF_STATUS[status](sql, after, limit),
        timeoutMs,
      );
      return rows.map(petFromRow);
    },
    async health(): Promise<StoreHealth> {
      try {
        // A create is one statement in a transaction of its own, so it writes exactly when a
        // transaction begun now may: not on a standby, nor under `default_transaction_read_only`.
        const rows = await read(
          () => sql`select pg_is_in_recovery() as recovering, current_setting('transaction_read_only') as read_only`,
          timeoutMs,
        );
        if (rows[0]?.["recovering"] !== false) return { ok: false, reason: "the database is read-only (a standby, or in recovery)" };
        if (rows[0]["read_only"] !== "off") {
          return { ok: false, reason: "the database is read-only (default_transaction_read_only is on for this server's sessions)" };
        }
        return { ok: true };
      } catch (error) {
        return { ok: false, reason: describeError(error) };
      }
    },
    async close(): Promise<void> {
      await flushing;
    },
  };
}

/**
 * A page of pets of one status: one query per status, with the status written into its text, so
 * the planner knows which partial index holds the page. With the status as a parameter, the plan
 * PostgreSQL caches for a prepared statement scans the primary key and filters on status, which
 * reads every pet when the status is rare (measured at 1,000,000 pets: 95-125 ms against 0.03 ms).
 */
const PAGE_OF_STATUS: Record<PetStatus, (sql: SqlQuery, after: number, limit: number) => PromiseLike<readonly Row[]>> = {
  available: (sql, after, limit) =>
    sql`select id, name, category_id, status from pets where status = 'available' and id > ${after} order by id limit ${limit}`,
  pending: (sql, after, limit) =>
    sql`select id, name, category_id, status from pets where status = 'pending' and id > ${after} order by id limit ${limit}`,
  sold: (sql, after, limit) =>
    sql`select id, name, category_id, status from pets where status = 'sold' and id > ${after} order by id limit ${limit}`,
};

/**
 * The ids a batch was given: `firstId` and the ones after it in order, and which of them were
 * inserted; or, when fewer ids than creates were left below 2^53 − 1, how many were (nothing written).
 */
type InsertedBatch =
  | { readonly kind: "inserted"; readonly firstId: number; readonly inserted: ReadonlySet<number> }
  | { readonly kind: "short"; readonly left: number };

/**
 * Inserts pets in one statement. The counter row's update takes the ids and holds the row's lock
 * until commit, which orders commits by id across every instance. A pet with an idempotency key
 * is inserted only if its key is: a key already taken (`on conflict do nothing`, which waits for
 * a transaction still writing it) leaves its id unused, a gap that never fills. The pets travel as
 * one JSON parameter so that any number of them is one statement with one plan.
 */
async function insertPets(sql: SqlClient, creates: readonly PendingCreate[]): Promise<InsertedBatch> {
  const count = creates.length;
  const records = JSON.stringify(creates.map(({ pet, key }, offset) => ({
    offset,
    name: pet.name,
    category_id: pet.categoryId,
    status: pet.status ?? null,
    client: key?.client ?? null,
    key: key?.key ?? null,
  })));
  const rows = await sql`
    with taken as (
      update animal_store set last_pet_id = last_pet_id + ${count} where last_pet_id <= ${MAX_EXACT_INTEGER - count} returning last_pet_id
    ), requested as (
      select taken.last_pet_id - ${count} + 1 + p.offset as id, p.name, p.category_id, p.status, p.client, p.key
      from taken, json_to_recordset(${records}::text::json)
        as p("offset" bigint, name text, category_id bigint, status text, client text, key text)
    ), keyed as (
      insert into pet_idempotency_keys (client, key, pet_id)
      select client, key, id from requested where key is not null
      on conflict do nothing
      returning pet_id
    ), inserted as (
      insert into pets (id, name, category_id, status)
      select id, name, category_id, status from requested where key is null or id in (select pet_id from keyed)
      returning id
    )
    select (select last_pet_id from taken) - ${count} + 1 as first_id, (select string_agg(id::text, ',') from inserted) as inserted,
      (select last_pet_id from animal_store) as before`;
  const row = rows[0];
  if (row?.["before"] === null || row?.["before"] === undefined) throw new Error("Cannot create pets: the database took no ids; is the animal_store row missing?");
  if (row["first_id"] === null) return { kind: "short", left: MAX_EXACT_INTEGER - Number(row["before"]) };
  const inserted = typeof row["inserted"] === "string" ? row["inserted"].split(",").map(Number) : [];
  return { kind: "inserted", firstId: Number(row["first_id"]), inserted: new Set(inserted) };
}

/** A query's rows, or `StoreUnavailableError` when the database fails in a way a retry may cure. */
async function read(query: () => PromiseLike<readonly Row[]>, timeoutMs: number): Promise<readonly Row[]> {
  try {
    return await withDeadline(againIfUndone(query, isTransientFailure), timeoutMs);
  } catch (error) {
    throw createFailure(error, false);
  }
}

/** A stored pet from a row; bigint columns may come back as strings, numbers or `BigInt`s. */
function petFromRow(row: Row): Pet {
  const status = row["status"];
  const pet = { name: String(row["name"]), categoryId: Number(row["category_id"]) };
  // The table's check constraint admits only the status values.
  return withId(Number(row["id"]), status === null || status === undefined ? pet : { ...pet, status: status as PetStatus });
}
