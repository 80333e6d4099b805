/**
 * @module
 * The stores the standalone server can keep pets in, one row each, chosen by `STORE`: how the server
 * opens it, how a line names it, where the generated API key is kept beside it, what cannot work on
 * this machine, what `animal-store export` reads, and where its instances share a rate limit's counts. A store added here is selected by the setting
 * with nothing else in the server to change (`docs/extending.md`, "A store selected by a setting").
 */
import { dirname } from "node:path";
import type { MovedPet, PetStore } from "../../src/mod.ts";
import type { RateCounters } from "../../src/plugs/rate-limit/mod.ts";
import type { Config } from "./config.ts";
import type { Metrics } from "./metrics.ts";
import type { Notices } from "./notices.ts";
import type { RuntimeOptions } from "./start.ts";
import type { TraceExport } from "./_otlp-export.ts";
import { createMemoryStore, exportPets } from "../../src/mod.ts";
import { openJsonFileSnapshot, openJsonFileStore } from "../json-file-store/mod.ts";
import { openPostgresRateCounters, openPostgresStore } from "../postgres-store/mod.ts";
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

/** Counts a rate limit's instances share, and how to let go of them. */
export interface SharedCounters {
  readonly counters: RateCounters;
  close(): Promise<void>;
}

/** One store the server can be told to use. */
export interface ServerStore {
  /** How a line names the store: its file, "the PostgreSQL database". */
  describe(config: Config): string;
  /** The folder the API key generated when `API_KEYS` is unset is kept in, or `undefined` when it is not kept (the pets are not either). */
  keyFolder(config: Config): string | undefined;
  /** A setting that cannot work on this machine, found before the server listens; `undefined` when there is none. */
  problem?(config: Config): string | undefined;
  /** Opens the store as the server uses it. */
  open(config: Config, context: OpenContext): Promise<PetStore>;
  /** What an export reads, when it is not the store opened as the server does (which a running server may hold). */
  openExport?(config: Config): Promise<ExportSource>;
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
    open: (config, { notices, metrics }) => openJsonFileStore(config.dataFile, { logger: notices, ...(metrics === undefined ? {} : { observer: metrics.fileStore }) }),
    // Read without the lock, up to the last whole line, while a server may be writing it.
    openExport: (config) => openJsonFileSnapshot(config.dataFile),
  },
  memory: {
    describe: () => "the memory store",
    keyFolder: () => undefined,
    open: () => Promise.resolve(createMemoryStore()),
  },
  postgres: {
    describe: () => "the PostgreSQL database",
    // The database keeps no file of the server's: the key stays in DATA_FILE's folder (`data/`), as before stores were rows.
    keyFolder: (config) => dirname(config.dataFile),
    open: openDatabase,
    openRateCounters: openDatabaseCounters,
  },
};

/** Whether `name` is a store `STORE` can take. */
export function isStoreName(name: string): name is StoreName {
  return (STORE_NAMES as readonly string[]).includes(name);
}

/** The store's row, typed as every row is. */
export function serverStore(config: Config): ServerStore {
  return SERVER_STORES[config.store];
}

/** What an export of the configured store reads: the row's own, or the store opened by `open` and read through its export. */
export async function openExportSource(config: Config, open: (config: Config) => Promise<PetStore>): Promise<ExportSource> {
  const own = serverStore(config).openExport;
  if (own !== undefined) return await own(config);
  const store = await open(config);
  return { exportPets: () => exportPets(store), clientMacSecrets: async () => (await store.clientMacSecrets?.()) ?? [], close: () => store.close() };
}

/** The PostgreSQL store over a client of its own, which closing the store closes too. */
async function openDatabase(config: Config, { runtime, notices, metrics, traces }: OpenContext): Promise<PetStore> {
  const connection = await runtime.connectPostgres(config.databaseUrl);
  const observed = metrics?.observeSql(connection.sql) ?? connection.sql;
  try {
    const store = await openPostgresStore({ sql: traces === undefined ? observed : sqlWithSpans(observed, traces.tracing.inSpan), logger: notices });
    notices.info(`opened ${describeDatabase(config.databaseUrl)}`);
    return { ...store, close: async () => (await store.close(), await connection.close()) };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/**
 * The rate limit's counts in the database, over a client of their own: an exchange never waits
 * behind the store's statements, nor takes a connection they need, and uses one at a time. Its
 * statements are counted by the metrics, never traced (an exchange belongs to no request).
 */
async function openDatabaseCounters(config: Config, { runtime, metrics }: OpenContext): Promise<SharedCounters> {
  const connection = await runtime.connectPostgres(config.databaseUrl);
  try {
    const counters = await openPostgresRateCounters({ sql: metrics?.observeSql(connection.sql) ?? connection.sql });
    return { counters, close: () => connection.close() };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
