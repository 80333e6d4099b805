/**
 * @module
 * Rate-limit counts shared through PostgreSQL (`RateCounters` of `animal-store/rate-limit`), so that
 * instances on one database give a client one budget. One row per key or client address in
 * `animal_store_rate_limits` (`_schema.ts`, step 2): its id (never a key: `key:` and the key's
 * name), whether it is an address, and `full_at`, when its bucket is full again, in milliseconds on
 * the database's clock, so the instances' clocks never meet.
 *
 * - An exchange is one statement while its parties have rows: each row is added to as GCRA does
 *   (`greatest(full_at, now - since) + cost`), locked in id order so that two instances never
 *   deadlock, and answered as the milliseconds taken now.
 * - Parties without a row are placed under a transaction-level advisory lock, so two instances never
 *   both take the last place: keys always get a row; an address only while fewer than `maxAddresses`
 *   addresses have one (rows whose bucket is full again are removed first to make room), else it is
 *   added to the overflow row every address past the bound shares. A flood of new addresses never
 *   grows the table past the bound.
 * - A row whose bucket is full again says nothing and may go: at most once a minute, and when room
 *   is wanted, up to 1,000 of them are deleted by the index on `full_at`, never by reading the table
 *   (rows another statement holds are skipped, so the delete never waits for one).
 */
import type { CounterBounds, CounterUse, RateCounters } from "../../src/plugs/rate-limit/mod.ts";
import { describeError, withDeadline } from "./_failures.ts";
import { useSchema } from "./_migrate.ts";
import type { SqlClient, SqlQuery } from "./sql-client.ts";

/** Options of the PostgreSQL rate-limit counts. */
export interface PostgresRateCountersOptions {
  /** The client to run queries with (the store's may be shared); never closed here. */
  readonly sql: SqlClient;
  /** How long an exchange may take before it rejects (the limiter then counts alone). Default 5000 ms. */
  readonly timeoutMs?: number;
  /** Whether opening may apply the schema steps the database lacks, as the store's option of that name. Default true. */
  readonly migrate?: boolean;
}

const DEFAULT_TIMEOUT_MS = 5000;
/** How often rows whose bucket is full again are removed, at most, besides when room is wanted. */
const PURGE_INTERVAL_MS = 60_000;
/** The most rows one removal deletes: each is found through the index, so the work is bounded. */
const PURGE_BATCH = 1000;
/** An arbitrary key naming the placing of new parties among the database's advisory locks. */
const PLACING_LOCK_KEY = 7_086_514_323;

/** Applies the schema steps the database lacks, unless told not to (the store's schema, `_schema.ts`), and returns the counts. */
export async function openPostgresRateCounters(options: PostgresRateCountersOptions): Promise<RateCounters> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    await withDeadline(useSchema(options.sql, options.migrate ?? true), timeoutMs);
  } catch (error) {
    throw new Error(`Cannot open the PostgreSQL rate-limit counts: ${describeError(error)}`, { cause: error });
  }
  const { sql } = options;
  let lastPurge = Date.now();
  return {
    exchange(uses, bounds) {
      if (Date.now() - lastPurge >= PURGE_INTERVAL_MS) {
        lastPurge = Date.now();
        void withDeadline(purgeFullBuckets(sql), timeoutMs).catch(() => {}); // a failure waits for the next time
      }
      return withDeadline(exchangeUses(sql, uses, bounds), timeoutMs);
    },
  };
}

/** Adds every use and answers, in order, the milliseconds taken of each party's bucket. */
async function exchangeUses(sql: SqlClient, uses: readonly CounterUse[], bounds: CounterBounds): Promise<number[]> {
  if (uses.length === 0) {
    // Asked while the limiter counts alone: a write that changes nothing, so a database that is
    // back but refuses writes (a standby, `default_transaction_read_only`) is not taken for back.
    await sql`update animal_store_rate_limits set full_at = full_at where false`;
    return [];
  }
  const taken = await addToRows(sql, uses);
  // A key never counted has a full bucket; an address never counted may be the overflow's.
  const missing = uses.filter((use) => !taken.has(use.id) && (use.costMs > 0 || use.address));
  if (missing.length > 0) for (const [id, used] of await place(sql, missing, bounds)) taken.set(id, used);
  return uses.map((use) => taken.get(use.id) ?? 0);
}

/** The uses as the statements take them: one JSON parameter, so any number of them is one statement with one plan. */
function usesJson(uses: readonly CounterUse[]): string {
  return JSON.stringify(uses.map((use) => ({ id: use.id, cost: use.costMs, since: use.sinceMs })));
}

/**
 * Adds each use to its row, if it has one, and reads the rows of uses that took nothing; resolves
 * with the milliseconds taken of each row found. The rows are locked in id order before they change.
 */
export async function addToRows(sql: SqlQuery, uses: readonly CounterUse[]): Promise<Map<string, number>> {
  const rows = await sql`
    with uses as (
      select id, cost, since from json_to_recordset(${usesJson(uses)}::text::json) as u(id text, cost double precision, since double precision)
    ), clock as (
      select extract(epoch from statement_timestamp())::double precision * 1000 as now
    ), locked as (
      select r.id from animal_store_rate_limits r join uses u on u.id = r.id where u.cost > 0 order by r.id for update of r
    ), added as (
      update animal_store_rate_limits r set full_at = greatest(r.full_at, clock.now - u.since) + u.cost
      from uses u, clock where u.id = r.id and r.id in (select id from locked)
      returning r.id, r.full_at
    ), read as (
      select r.id, r.full_at from animal_store_rate_limits r join uses u on u.id = r.id where u.cost = 0
    )
    select s.id, greatest(s.full_at - clock.now, 0) as used from (select id, full_at from added union all select id, full_at from read) s, clock`;
  return new Map(rows.map((row) => [String(row["id"]), Number(row["used"])]));
}

/**
 * Places parties without a row, under the advisory lock: each use that took something gets a row
 * (an address while there is room, else its cost goes to the overflow row); an address only read
 * answers the overflow's count once there is no room. Resolves with the milliseconds taken of each.
 */
function place(sql: SqlClient, missing: readonly CounterUse[], bounds: CounterBounds): Promise<Map<string, number>> {
  return Promise.resolve(sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${PLACING_LOCK_KEY})`;
    // Rows of these parties and the overflow's are locked in id order first, as `addToRows` locks
    // them, so an exchange running meanwhile never waits for one this holds while holding another.
    const ids = JSON.stringify([...missing.map((use) => use.id), bounds.overflowId]);
    await tx`select r.id from json_array_elements_text(${ids}::text::json) as u(id) join animal_store_rate_limits r on r.id = u.id order by r.id for update of r`;
    // Another instance may have placed some since they were missed.
    const taken = await addToRows(tx, missing);
    const still = missing.filter((use) => !taken.has(use.id));
    const [own, overflowed, reads] = await sortByRoom(tx, still, bounds);
    for (const [id, used] of await insertRows(tx, own)) taken.set(id, used);
    if (overflowed.length > 0 || reads.length > 0) {
      const used = await addToOverflow(tx, overflowed, bounds.overflowId);
      for (const use of [...overflowed, ...reads]) taken.set(use.id, used);
    }
    return taken;
  }));
}

/**
 * The uses to give a row of their own (keys, and addresses while there is room), those whose cost
 * goes to the overflow (addresses past the bound, and the overflow's own use), and the addresses
 * only read that answer the overflow's count.
 */
async function sortByRoom(tx: SqlQuery, uses: readonly CounterUse[], bounds: CounterBounds): Promise<[CounterUse[], CounterUse[], CounterUse[]]> {
  const isAddress = (use: CounterUse) => use.address && use.id !== bounds.overflowId;
  const takers = uses.filter((use) => isAddress(use) && use.costMs > 0);
  const reads = uses.filter((use) => isAddress(use) && use.costMs === 0);
  const room = takers.length + reads.length === 0 ? 0 : await roomFor(tx, bounds.maxAddresses, takers.length);
  const keys = uses.filter((use) => !use.address && use.costMs > 0);
  const overflowOwn = uses.filter((use) => use.id === bounds.overflowId && use.costMs > 0);
  return [[...keys, ...takers.slice(0, room)], [...overflowOwn, ...takers.slice(room)], room > takers.length ? [] : reads];
}

/** How many more addresses may have a row: `max` less those that have one, after removing full buckets if that leaves fewer than `wanted`. */
async function roomFor(tx: SqlQuery, max: number, wanted: number): Promise<number> {
  // Counted up to the bound, so the count costs at most `max` rows whatever the table holds.
  const held = async () => Number((await tx`select count(*) as held from (select 1 from animal_store_rate_limits where address limit ${max}) s`)[0]?.["held"] ?? max);
  let room = max - (await held());
  if (room < wanted) {
    await purgeFullBuckets(tx);
    room = max - (await held());
  }
  return Math.max(0, room);
}

/** Inserts a row for each use, its bucket taken by the use; resolves with the milliseconds taken of each. */
async function insertRows(tx: SqlQuery, uses: readonly CounterUse[]): Promise<Map<string, number>> {
  if (uses.length === 0) return new Map();
  const rows = await tx`
    with clock as (select extract(epoch from statement_timestamp())::double precision * 1000 as now)
    insert into animal_store_rate_limits (id, address, full_at)
    select u.id, u.address, clock.now - u.since + u.cost
    from json_to_recordset(${JSON.stringify(uses.map((use) => ({ id: use.id, address: use.address, cost: use.costMs, since: use.sinceMs })))}::text::json)
      as u(id text, address boolean, cost double precision, since double precision), clock
    on conflict (id) do nothing
    returning id, greatest(full_at - (select now from clock), 0) as used`;
  return new Map(rows.map((row) => [String(row["id"]), Number(row["used"])]));
}

/** Adds the uses' costs to the overflow row (from the earliest of them on), made if missing; resolves with its milliseconds taken. */
async function addToOverflow(tx: SqlQuery, uses: readonly CounterUse[], overflowId: string): Promise<number> {
  const cost = uses.reduce((sum, use) => sum + use.costMs, 0);
  const since = Math.max(0, ...uses.map((use) => use.sinceMs));
  const rows = cost === 0
    ? await tx`select greatest(full_at - extract(epoch from statement_timestamp())::double precision * 1000, 0) as used from animal_store_rate_limits where id = ${overflowId}`
    : await tx`
      with clock as (select extract(epoch from statement_timestamp())::double precision * 1000 as now)
      insert into animal_store_rate_limits as r (id, address, full_at)
      select ${overflowId}, false, clock.now - ${since}::double precision + ${cost}::double precision from clock
      on conflict (id) do update set full_at = greatest(r.full_at, (select now from clock) - ${since}::double precision) + ${cost}::double precision
      returning greatest(r.full_at - (select now from clock), 0) as used`;
  return Number(rows[0]?.["used"] ?? 0);
}

/** Deletes up to `PURGE_BATCH` rows whose bucket is full again, found by the index on `full_at`, skipping rows another statement holds. */
export async function purgeFullBuckets(sql: SqlQuery): Promise<void> {
  // By the rows' places (`ctid`), which the lock keeps: `id in (…)` would be joined by reading the whole table.
  await sql`
    delete from animal_store_rate_limits where ctid = any(array(
      select ctid from animal_store_rate_limits where full_at < extract(epoch from statement_timestamp())::double precision * 1000
      order by full_at limit ${PURGE_BATCH} for update skip locked
    ))`;
}
