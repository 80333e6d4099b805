/**
 * @module
 * The standalone server, whatever the runtime: read the settings, open the store, serve the API with
 * `GET /health` and the access log, print the base URL, and on SIGINT/SIGTERM finish in-flight
 * requests, close the store and exit 0.
 */
import process from "node:process";
import type { App, PetStore } from "../../src/mod.ts";
import type { Config } from "./config.ts";
import type { ConnectPostgres } from "./postgres-connection.ts";
import type { Serve } from "../_serve.ts";
import { urlHost } from "../_serve.ts";
import { createApp, createMemoryStore } from "../../src/mod.ts";
import type { AccessLog } from "./access-log.ts";
import { createAccessLog } from "./access-log.ts";
import { readConfig } from "./config.ts";
import { withHealth } from "./health.ts";
import { openJsonFileStore } from "../json-file-store/mod.ts";
import { describeDatabase } from "./postgres-connection.ts";
import { openPostgresStore } from "../postgres-store/mod.ts";

/** What the standalone server needs from its runtime besides `serve`. */
export interface RuntimeOptions {
  /** Makes the PostgreSQL client this runtime uses, for `STORE=postgres`. */
  readonly connectPostgres: ConnectPostgres;
}

/** How long shutdown waits for in-flight requests before exiting anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Which `serve` a runtime uses with the given settings. */
export type ChooseServe = (config: Config) => Serve;

/** Runs the standalone server with the `serve` the runtime chooses for the settings. */
export async function start(chooseServe: ChooseServe, runtime: RuntimeOptions): Promise<void> {
  const result = readConfig(process.env, process.argv.slice(2));
  if (!result.ok) return fail(result.issues);
  const config = result.value;
  const serve = chooseServe(config);
  const store = await openStore(config, runtime);
  let stopping = false;
  const log = config.log === "off" ? undefined : createAccessLog({ format: config.log });
  const server = await serve(serverApp(config, store, log, () => stopping), { port: config.port, hostname: config.host, timeouts: config.edge.timeouts });
  if (config.keyGenerated) console.log(`API_KEYS is not set; generated API key: ${config.apiKeys[0]}`);
  console.log(`listening on http://${urlHost(config.host)}:${server.port}/v1`);

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      console.error("animal-store: in-flight requests did not finish in time; exiting");
      log?.flush();
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    await server.close();
    await store.close();
    log?.flush();
    console.log("stopped");
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/** The API with `GET /health` in front, and the access log around both unless it is off. */
function serverApp(config: Config, store: PetStore, log: AccessLog | undefined, stopping: () => boolean): App {
  const { publicUrl, trustProxy } = config.edge;
  const api = createApp({
    store,
    apiKeys: config.apiKeys,
    trustProxy,
    ...(publicUrl === "" ? {} : { publicUrl }),
    ...(log === undefined ? {} : { onError: log.reportError }),
  });
  const app = withHealth(api, { store, stopping });
  return log === undefined ? app : log.wrap(app);
}

async function openStore(config: Config, runtime: RuntimeOptions): Promise<PetStore> {
  if (config.store === "memory") return createMemoryStore();
  try {
    return config.store === "postgres" ? await openDatabase(config.databaseUrl, runtime) : await openJsonFileStore(config.dataFile);
  } catch (error) {
    return fail([error instanceof Error ? error.message : String(error)], 1);
  }
}

/** The PostgreSQL store over a client of its own, which closing the store closes too. */
async function openDatabase(url: string, runtime: RuntimeOptions): Promise<PetStore> {
  const connection = await runtime.connectPostgres(url);
  try {
    const store = await openPostgresStore({ sql: connection.sql });
    console.info(`opened ${describeDatabase(url)}`);
    return { ...store, close: async () => (await store.close(), await connection.close()) };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** Prints each problem and exits: 2 for bad settings, 1 for a store that cannot open. */
function fail(problems: readonly string[], exitCode = 2): never {
  for (const problem of problems) console.error(`animal-store: ${problem}`);
  process.exit(exitCode);
}
