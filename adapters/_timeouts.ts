/**
 * @module
 * How long the standalone server waits on a client, so slow or idle connections cannot hold it.
 * Each runtime offers different knobs; each adapter maps these three onto what it has
 * (`docs/running.md`, "Slow clients, timeouts and file descriptors", says which apply where).
 */

/** The three waits, in seconds. */
export interface Timeouts {
  /** From a connection's first byte (or its previous answer) until the request's headers are complete. */
  readonly headerSeconds: number;
  /** From the headers until the whole request body has arrived. */
  readonly bodySeconds: number;
  /** How long a keep-alive connection may sit between requests. */
  readonly idleSeconds: number;
}

/** The waits the server uses unless configured otherwise. */
export const DEFAULT_TIMEOUTS: Timeouts = Object.freeze({ headerSeconds: 10, bodySeconds: 30, idleSeconds: 5 });
