/**
 * @module
 * Entry point: `bun adapters/server/start-bun.ts` runs the standalone server on Bun.
 */
import { SQL } from "bun";
import { serveBun } from "../bun.ts";
import { CONNECT_TIMEOUT_SECONDS, CONNECTION_PARAMETERS } from "./postgres-connection.ts";
import { start } from "./start.ts";

await start(() => serveBun, {
  // Bun's built-in client: STORE=postgres needs nothing installed.
  connectPostgres: (url) => {
    const sql = new SQL(url, { connection: CONNECTION_PARAMETERS, connectionTimeout: CONNECT_TIMEOUT_SECONDS });
    return Promise.resolve({ sql, close: () => sql.close({ timeout: CONNECT_TIMEOUT_SECONDS }) });
  },
});
