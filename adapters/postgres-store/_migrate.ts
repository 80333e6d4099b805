/**
 * @module
 * A PostgreSQL database's schema brought to a version, step by step (`_schema.ts`), and the check
 * that this code can use the version a database is at.
 *
 * - Every step still to apply runs in one transaction, under the advisory lock that names the
 *   schema's setup, so two instances opening together (or `migrate` beside them) apply each step
 *   once; a step that fails leaves the database as it was.
 * - The transaction waits at most `lock_timeout` for a table's lock: behind a long transaction it
 *   gives up, rather than hold every statement of the serving instances queued behind it.
 * - A dry run reads the version and says what would run, as SQL text, writing nothing.
 */
import type { Row, SqlClient, SqlQuery, SqlValue } from "./sql-client.ts";
import type { SchemaStatement } from "./_schema.ts";
import { COMPATIBILITY_STEP, SCHEMA_STEPS, SCHEMA_VERSION } from "./_schema.ts";

/** Where a database's schema stands. */
export interface SchemaState {
  /** Its schema version: 0 when it holds no animal-store tables. */
  readonly version: number;
  /** The oldest schema version whose code may use it (its own version, below the step that records it). */
  readonly compatibleFrom: number;
}

/** A step as `migrateSchema` reports it: its version, what it is for, and its statements as SQL text. */
export interface SchemaStepText {
  readonly version: number;
  readonly summary: string;
  readonly statements: readonly string[];
}

/** What `migrateSchema` found and did. */
export interface SchemaMigration {
  /** The version the database was at (0: no animal-store tables). */
  readonly from: SchemaState;
  /** The version it is at now, or would be after a dry run. */
  readonly to: SchemaState;
  /** The steps applied, or that a dry run would apply, in order. */
  readonly steps: readonly SchemaStepText[];
  /** The statements around the steps: the transaction, its lock timeout and the advisory lock, as a dry run prints them. */
  readonly around: { readonly before: readonly string[]; readonly after: readonly string[] };
}

/** How far `migrateSchema` goes, and whether it writes. */
export interface MigrateOptions {
  /** The schema version to bring the database to. Default: `SCHEMA_VERSION`, this code's. */
  readonly to?: number;
  /** Reads the version and reports what would run, writing nothing. Default: false. */
  readonly dryRun?: boolean;
}

/** An arbitrary key that names the schema's setup lock among the database's advisory locks. */
const SCHEMA_LOCK_KEY = 7_086_514_322;

/**
 * What the transaction runs before the steps: no limit on a statement's time (a step may build an
 * index on a large table) but on the wait for a table's lock, then the setup lock.
 */
const FIRST: readonly SchemaStatement[] = [
  (sql) => sql`set local statement_timeout = 0`,
  (sql) => sql`set local lock_timeout = '5s'`,
  (sql) => sql`select pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`,
];

/**
 * Brings the database's schema to `options.to` (this code's version unless told), applying the
 * steps it lacks in order, all in one transaction; never takes a step back (a database above the
 * target is left as it is). Rejects with `RangeError` for a version this code does not know.
 */
export async function migrateSchema(sql: SqlClient, options: MigrateOptions = {}): Promise<SchemaMigration> {
  const target = options.to ?? SCHEMA_VERSION;
  if (!Number.isSafeInteger(target) || target < 1 || target > SCHEMA_VERSION) {
    throw new RangeError(`there is no schema version ${target}: this animal-store knows versions 1 to ${SCHEMA_VERSION}`);
  }
  if (options.dryRun === true) return plan(await readSchemaState(sql), target);
  return await sql.begin(async (tx) => {
    for (const statement of FIRST) await statement(tx);
    const migration = plan(await readSchemaState(tx), target);
    for (const version of pendingVersions(migration.from.version, target)) {
      for (const statement of stepStatements(version)) await statement(tx);
    }
    return migration;
  });
}

/** Reads the database's schema version, and which older code it says may use it. */
export async function readSchemaState(sql: SqlQuery): Promise<SchemaState> {
  const present = await sql`select to_regclass('animal_store') is not null as present`;
  if (present[0]?.["present"] !== true) return { version: 0, compatibleFrom: 0 };
  const rows = await sql`select schema_version from animal_store`;
  const version = rows[0] === undefined ? 0 : Number(rows[0]["schema_version"]);
  if (version < COMPATIBILITY_STEP) return { version, compatibleFrom: version };
  const compatible = await sql`select compatible_from from animal_store`;
  return { version, compatibleFrom: Number(compatible[0]?.["compatible_from"]) };
}

/**
 * Brings the schema to this code's version when `migrate` allows, then checks that this code can use
 * it, rejecting with the reason when not; resolves with where it stands. A newer schema that older
 * code may still use (a rolling upgrade half done) is used.
 */
export async function useSchema(sql: SqlClient, migrate: boolean): Promise<SchemaState> {
  const state = migrate ? (await migrateSchema(sql)).to : await readSchemaState(sql);
  const problem = schemaProblem(state);
  if (problem === undefined) return state;
  throw new Error(migrate ? problem : `${problem}; apply the schema first with animal-store migrate (or migrateSchema in code): this store was opened not to change it (MIGRATE=off, migrate: false)`);
}

/**
 * Why this code cannot use a database in `state`, or `undefined` when it can: no tables, an older
 * version (the steps it lacks must be applied first), or a newer one that says this code may not.
 */
function schemaProblem(state: SchemaState): string | undefined {
  if (state.version === 0) return "the database holds no animal-store tables (schema version 0)";
  if (state.version < SCHEMA_VERSION) return `the database is at schema version ${state.version}; this animal-store needs version ${SCHEMA_VERSION}`;
  if (state.compatibleFrom > SCHEMA_VERSION) {
    return `the database is at schema version ${state.version}, which animal-store may use only from the version that knows schema ` +
      `version ${state.compatibleFrom}; this one knows version ${SCHEMA_VERSION}, so upgrade it`;
  }
  return undefined;
}

/** What migrating from `from` to `target` applies, or nothing when the database is there already (or past it). */
function plan(from: SchemaState, target: number): SchemaMigration {
  const versions = pendingVersions(from.version, target);
  const to = versions.length === 0 ? from : { version: target, compatibleFrom: compatibleFrom(target) };
  return {
    from,
    to,
    steps: versions.map((version) => ({ version, summary: SCHEMA_STEPS[version - 1]!.summary, statements: stepStatements(version).map(textOf) })),
    around: { before: ["begin", ...FIRST.map(textOf)], after: ["commit"] },
  };
}

function pendingVersions(from: number, target: number): number[] {
  return Array.from({ length: Math.max(0, target - from) }, (_, i) => from + i + 1);
}

/** A step's own statements, then the one that records its version (and, from the step that keeps it, which older code may use the database). */
function stepStatements(version: number): readonly SchemaStatement[] {
  const compatible = compatibleFrom(version);
  const record: SchemaStatement = version < COMPATIBILITY_STEP
    ? (sql) => sql`update animal_store set schema_version = ${version}`
    : (sql) => sql`update animal_store set schema_version = ${version}, compatible_from = ${compatible}`;
  return [...SCHEMA_STEPS[version - 1]!.statements, record];
}

/** The oldest code that may use a database at `version`: a step that breaks older code keeps doing so after it. */
function compatibleFrom(version: number): number {
  return Math.max(...SCHEMA_STEPS.slice(0, version).map((step) => step.compatibleFrom));
}

/** A statement as SQL text: it is run against a recorder, its parameters (numbers only) written in place. */
function textOf(statement: SchemaStatement): string {
  let text = "";
  const record = ((strings: TemplateStringsArray, ...values: readonly SqlValue[]) => {
    text = strings.reduce((joined, part, i) => joined + literal(values[i - 1]) + part);
    return Promise.resolve([] as readonly Row[]);
  }) as SqlQuery;
  void statement(record);
  const [first = "", ...rest] = text.split("\n");
  const margin = Math.min(...rest.map((line) => line.length - line.trimStart().length));
  return [first, ...rest.map((line) => line.slice(margin))].join("\n");
}

function literal(value: SqlValue | undefined): string {
  if (typeof value !== "number") throw new TypeError(`a schema statement's parameter must be a number, got ${JSON.stringify(value)}`);
  return String(value);
}
