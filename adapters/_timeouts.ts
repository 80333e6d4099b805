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

/**
 * How long a closing answer waits while the rest of a body the app left unread (an upload over the
 * limit) is read and dropped: a client still sending when the connection closes would get a reset
 * instead of the answer. An upload that is still coming after this is cut. Bun's own server does this
 * for a body with a `Content-Length`; the adapters do it for the rest (`bun.ts`, `node.ts`).
 */
export const UNREAD_BODY_WAIT_MS = 1000;
