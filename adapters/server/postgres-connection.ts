/**
 * @module
 * How the standalone server connects to PostgreSQL: one client per runtime (Bun's built-in `SQL`,
 * postgres.js on Node and Deno), each with bounded connect and statement times.
 */
import type { SqlClient } from "../postgres-store/mod.ts";

/** A client connected to one database, and how to close it. */
export interface PostgresConnection {
  readonly sql: SqlClient;
  /** Closes the client's connections, waiting a few seconds at most for queries in flight. */
  close(): Promise<void>;
}

/** Makes a client for a `postgres://` URL; rejects when the runtime's client is not installed. */
export type ConnectPostgres = (url: string) => Promise<PostgresConnection>;

/**
 * Startup parameters every connection gets: the server cancels a statement that runs longer than
 * the store waits for it, so an abandoned statement does not hold locks.
 */
export const CONNECTION_PARAMETERS = { application_name: "animal-store", statement_timeout: 5000 } as const;

/** Seconds a client may take to connect, and to finish queries in flight when closing. */
export const CONNECT_TIMEOUT_SECONDS = 5;

/** Connects with postgres.js (`npm install postgres`), the client for Node and Deno. */
export const connectPostgresJs: ConnectPostgres = async (url) => {
  let postgres: typeof import("postgres");
  try {
    postgres = (await import("postgres")).default;
  } catch (error) {
    const cause = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    throw new Error(`STORE=postgres on this runtime needs the postgres.js client: run "npm install postgres" (${cause})`);
  }
  const sql = postgres(url, {
    connection: CONNECTION_PARAMETERS,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    // postgres.js waits 3^n / 100 s (up to 10-20 s) after its nth failed connection in a row, so
    // after an outage of a few seconds the store and the rate limit's shared counts came back up
    // to 20 s after the database (Bun's client tries at once). A refused connection costs little.
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
  });
  return { sql, close: () => sql.end({ timeout: CONNECT_TIMEOUT_SECONDS }) };
};

/** Seconds postgres.js waits before connecting again after `failures` failed connections in a row: 0.1, 0.2, 0.4, then every 0.5 s. */
export function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.05 * 2 ** failures, 0.5);
}

/** Where a database URL points, for the start-up line: host, port and database, never the password. */
export function describeDatabase(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  return `PostgreSQL database "${decodeURIComponent(pathname.slice(1)) || "(default)"}" on ${hostname || "localhost"}:${port || "5432"}`;
}
