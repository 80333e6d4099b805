/**
 * @module
 * The stores the standalone server can keep pets in, one row each, chosen by `STORE`: how the server
 * opens it, how a line names it, where the generated API key is kept beside it, what cannot work on
 * this machine, what `animal-store export` reads and `import` writes, how `animal-store migrate` brings its tables or
 * file to the version this code reads, and where its instances share a rate limit's counts. A store
 * added here is selected by the setting with nothing else in the server to change
 * (`docs/extending.md`, "A store selected by a setting").
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ImportOptions, ImportSummary, MovedPet, PetStore } from "../../src/mod.ts";
import type { RateCounters } from "../../src/plugs/rate-limit/mod.ts";
import type { Config } from "./config.ts";
import type { Metrics } from "./metrics.ts";
import type { Notices } from "./notices.ts";
import type { RuntimeOptions } from "./start.ts";
import type { TraceExport } from "./_otlp-export.ts";
import { createMemoryStore, exportPets, importPets } from "../../src/mod.ts";
import { DATA_FILE_VERSION, dataFileVersion, openJsonFileImport, openJsonFileSnapshot, openJsonFileStore } from "../json-file-store/mod.ts";
import type { SchemaMigration } from "../postgres-store/mod.ts";
import { migrateSchema, openPostgresRateCounters, openPostgresStore, readSchemaState, SCHEMA_VERSION } from "../postgres-store/mod.ts";
import { storeFileProblem } from "./listen-checks.ts";
import { describeDatabase } from "./postgres-connection.ts";
import { sqlWithSpans } from "./_sql-spans.ts";

/** What opening a store may use: the runtime's clients, the server's notices, its metrics and its spans. */
export interface OpenContext {
  readonly runtime: RuntimeOptions;
  readonly notices: Notices;
  readonly metrics?: Metrics | undefined;
  readonly traces?: TraceExport | undefined;
}

/** What `animal-store export` reads: every pet in id order with its recent key, and what those keys' `clientMac` was made under. */
export interface ExportSource {
  exportPets(): AsyncIterable<MovedPet>;
  clientMacSecrets?(): Promise<readonly string[]>;
  close(): Promise<void>;
}

/** What `animal-store import` writes into (each pet checked as `importPets` checks it) and reads back from. */
export interface ImportTarget {
  importPets(pets: AsyncIterable<MovedPet>, options: ImportOptions): Promise<ImportSummary>;
  exportPets(): AsyncIterable<MovedPet>;
  close(): Promise<void>;
}

/** What `animal-store migrate` may be told: the version to reach (this code's by default), and whether to write. */
export interface MigrateRequest {
  readonly to?: number;
  readonly dryRun: boolean;
}

/** What `animal-store migrate` found and did to a store's tables or file, or would do on a dry run. */
export interface StoreMigration {
  /** What a version is called for this store: "schema version", "format version". */
  readonly versionName: string;
  /** The version the store was at: 0 when it did not exist. */
  readonly from: number;
  /** The version it is at now, or would be. */
  readonly to: number;
  /** This code's version. */
  readonly latest: number;
  /** The steps applied, or to be applied, each with the statements it runs (none for a file). */
  readonly steps: readonly { readonly version: number; readonly summary: string; readonly statements: readonly string[] }[];
  /** The SQL statements around the steps, when they are SQL (a dry run prints a script). */
  readonly around?: { readonly before: readonly string[]; readonly after: readonly string[] };
}

/** Counts a rate limit's instances share, and how to let go of them. */
export interface SharedCounters {
  readonly counters: RateCounters;
  close(): Promise<void>;
}

/** One store the server can be told to use. */
export interface ServerStore {
  /** How a line names the store: its file, `the PostgreSQL database "pets" on db.internal:5432`. */
  describe(config: Config): string;
  /** The folder the API key generated when `API_KEYS` is unset is kept in, or `undefined` when it is not kept (the pets are not either). */
  keyFolder(config: Config): string | undefined;
  /** A setting that cannot work on this machine, found before the server listens; `undefined` when there is none. */
  problem?(config: Config): string | undefined;
  /** Opens the store as the server uses it. */
  open(config: Config, context: OpenContext): Promise<PetStore>;
  /** What an export reads, when it is not the store opened as the server does (which a running server may hold). */
  openExport?(config: Config, context: OpenContext): Promise<ExportSource>;
  /** What an import writes into, when it is not the store opened as the server does (which loads every pet). */
  openImport?(config: Config, context: OpenContext): Promise<ImportTarget>;
  /** Brings the store's tables or file to the version this code reads (`animal-store migrate`); absent: the store keeps nothing to migrate. */
  migrate?(config: Config, context: OpenContext, request: MigrateRequest): Promise<StoreMigration>;
  /** Where the instances on this store share a rate limit's counts (`RATE_LIMIT`); absent: each instance counts alone, as the only one on its store. */
  openRateCounters?(config: Config, context: OpenContext): Promise<SharedCounters>;
}

/** The names `STORE` takes, one per row of `SERVER_STORES` (the compiler holds the two to each other). */
export const STORE_NAMES = ["file", "memory", "postgres"] as const;

/** The name of a store `STORE` can take. */
export type StoreName = (typeof STORE_NAMES)[number];

/** Every store `STORE` can name, by the name it takes. */
export const SERVER_STORES: Readonly<Record<StoreName, ServerStore>> = {
  file: {
    describe: (config) => config.dataFile,
    keyFolder: (config) => dirname(config.dataFile),
    problem: (config) => storeFileProblem(config.dataFile, "DATA_FILE"),
    open: async (config, { notices, metrics }) => {
      refuseMissingFile(config);
      return await openJsonFileStore(config.dataFile, { logger: notices, ...(metrics === undefined ? {} : { observer: metrics.fileStore }) });
    },
    // Read without the lock, up to the last whole line, while a server may be writing it.
    openExport: (config) => openJsonFileSnapshot(config.dataFile),
    // Written as it is read, without loading the pets: memory stays flat at any count.
    openImport: async (config, { notices }) => {
      refuseMissingFile(config);
      return await openJsonFileImport(config.dataFile, { logger: notices });
    },
    migrate: migrateDataFile,
  },
  memory: {
    describe: () => "the memory store",
    keyFolder: () => undefined,
    open: () => Promise.resolve(createMemoryStore()),
  },
  postgres: {
    // Named exactly, host and database: a backup of the wrong one is told by its line.
    describe: (config) => `the ${describeDatabase(config.databaseUrl)}`,
    // The database keeps no file of the server's: the key stays in DATA_FILE's folder (`data/`), as before stores were rows.
    keyFolder: (config) => dirname(config.dataFile),
    open: openDatabase,
    openExport: openDatabaseExport,
    migrate: async (config, { runtime }, request) => {
      const connection = await runtime.connectPostgres(config.databaseUrl);
      try {
        return schemaMigration(await migrateSchema(connection.sql, request));
      } finally {
        await connection.close();
      }
    },
    openRateCounters: openDatabaseCounters,
  },
};

/** With `MIGRATE=off`, refuses a data file that does not exist: nothing then makes an empty one at a path it was never meant to use. */
function refuseMissingFile(config: Config): void {
  if (!config.migrate && !existsSync(config.dataFile)) {
    throw new Error(`${config.dataFile} does not exist, and with MIGRATE=off the server makes no data file: make it with animal-store migrate, ` +
      `or correct DATA_FILE (a relative path is read from the working directory, ${resolve(".")})`);
  }
}

/** Whether `name` is a store `STORE` can take. */
export function isStoreName(name: string): name is StoreName {
  return (STORE_NAMES as readonly string[]).includes(name);
}

/** The store's row, typed as every row is. */
export function serverStore(config: Config): ServerStore {
  return SERVER_STORES[config.store];
}

/**
 * What an export of the configured store reads: the row's own, or the store opened as the server
 * opens it, never changing its tables or file (`MIGRATE=off`: a backup only reads), read through its
 * export. Rejects naming why when it cannot.
 */
export async function openExportSource(config: Config, context: OpenContext): Promise<ExportSource> {
  const readOnly = { ...config, migrate: false };
  const row = serverStore(readOnly);
  if (row.openExport !== undefined) return await row.openExport(readOnly, context);
  return sourceOf(await row.open(readOnly, context));
}

/** A store read through its export. */
function sourceOf(store: PetStore): ExportSource {
  return { exportPets: () => exportPets(store), clientMacSecrets: async () => (await store.clientMacSecrets?.()) ?? [], close: () => store.close() };
}

/** What an import writes into: the store's own target, or else the store opened as the server does. */
export async function openImportTarget(config: Config, context: OpenContext, open: (config: Config) => Promise<PetStore>): Promise<ImportTarget> {
  const own = serverStore(config).openImport;
  if (own !== undefined) {
    const target = await own(config, context);
    return { ...target, importPets: (pets, options) => importPets(target, pets, options) };
  }
  const store = await open(config);
  return { importPets: (pets, options) => importPets(store, pets, options), exportPets: () => exportPets(store), close: () => store.close() };
}

/**
 * The database to export, opened as the server opens it but never changing its schema: a database
 * without animal-store's tables has never been written to, and is refused as one (the wrong database,
 * or the wrong Compose project), not as one to migrate.
 */
async function openDatabaseExport(config: Config, context: OpenContext): Promise<ExportSource> {
  const connection = await context.runtime.connectPostgres(config.databaseUrl);
  try {
    const { version } = await readSchemaState(connection.sql);
    if (version === 0) {
      throw new Error(`the ${describeDatabase(config.databaseUrl)} holds no animal-store tables: nothing was ever written to it, so there is nothing to back up; ` +
        "if it is the wrong database, check DATABASE_URL (with Compose, -p animal-store)");
    }
  } finally {
    await connection.close();
  }
  return sourceOf(await openDatabase(config, context));
}

/** The PostgreSQL store over a client of its own, which closing the store closes too. */
async function openDatabase(config: Config, { runtime, notices, metrics, traces }: OpenContext): Promise<PetStore> {
  const connection = await runtime.connectPostgres(config.databaseUrl);
  const observed = metrics?.observeSql(connection.sql) ?? connection.sql;
  try {
    const store = await openPostgresStore({ sql: traces === undefined ? observed : sqlWithSpans(observed, traces.tracing.inSpan), logger: notices, migrate: config.migrate });
    notices.info(`opened ${describeDatabase(config.databaseUrl)}`);
    return { ...store, close: async () => (await store.close(), await connection.close()) };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** What `migrate` reports of a database's schema. */
function schemaMigration(migration: SchemaMigration): StoreMigration {
  return { versionName: "schema version", from: migration.from.version, to: migration.to.version, latest: SCHEMA_VERSION, steps: migration.steps, around: migration.around };
}

/**
 * The data file at the one format version there is: made (empty, with its header and secret) when
 * there is none, refused naming its version when it names one this code does not read.
 */
async function migrateDataFile(config: Config, { notices }: OpenContext, request: MigrateRequest): Promise<StoreMigration> {
  if (request.to !== undefined && request.to !== DATA_FILE_VERSION) throw new RangeError(`there is no format version ${request.to}: this animal-store knows version ${DATA_FILE_VERSION}`);
  const version = await dataFileVersion(config.dataFile);
  const done = { versionName: "format version", latest: DATA_FILE_VERSION, to: DATA_FILE_VERSION };
  if (version === undefined) {
    if (!request.dryRun) await (await openJsonFileStore(config.dataFile, { logger: notices })).close();
    return { ...done, from: 0, steps: [{ version: DATA_FILE_VERSION, summary: `make ${config.dataFile}, empty, with its header and secret`, statements: [] }] };
  }
  if (version !== DATA_FILE_VERSION) {
    throw new Error(`${config.dataFile} names format version ${JSON.stringify(version)}, which this animal-store cannot read (it reads version ${DATA_FILE_VERSION}): upgrade animal-store`);
  }
  return { ...done, from: DATA_FILE_VERSION, steps: [] };
}

/**
 * The rate limit's counts in the database, over a client of their own: an exchange never waits
 * behind the store's statements, nor takes a connection they need, and uses one at a time. Its
 * statements are counted by the metrics, never traced (an exchange belongs to no request).
 */
async function openDatabaseCounters(config: Config, { runtime, metrics }: OpenContext): Promise<SharedCounters> {
  const connection = await runtime.connectPostgres(config.databaseUrl);
  try {
    const counters = await openPostgresRateCounters({ sql: metrics?.observeSql(connection.sql) ?? connection.sql, migrate: config.migrate });
    return { counters, close: () => connection.close() };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
