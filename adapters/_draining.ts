/**
 * @module
 * Graceful stop, the same on every runtime: once the server stops, a request already being handled
 * is answered and its connection closed (`Connection: close`), a request that arrives later gets
 * 503 and its connection closed, and the stop waits until none is in flight and the connections
 * are quiet; only then does the adapter stop listening and close what remains.
 */
import type { Handler } from "../src/mod.ts";
import { errorResponse } from "../src/errors.ts";

/** A handler that counts the requests in flight, and the way to stop it. */
export interface Draining {
  readonly handler: Handler;
  /** Stops taking requests; resolves once every request in flight is answered and the connections are quiet. */
  drain(): Promise<void>;
}

/**
 * How long no request may have arrived before the stop closes what connections remain: a client
 * whose keep-alive request was already on its way when the stop began gets a 503, not a reset.
 */
const QUIET_MS = 250;

/** The longest the stop waits for quiet (new connections keep coming to a runtime that still listens). */
const QUIET_WAIT_LIMIT_MS = 2000;

/** Wraps a handler so that it can be drained. */
export function createDraining(handler: Handler): Draining {
  let inFlight = 0;
  let closing = false;
  let lastArrival = 0;
  const wrapped: Handler = async (request) => {
    if (closing) {
      lastArrival = Date.now();
      return errorResponse("service_unavailable", "The server is shutting down; retry on a new connection", { connection: "close" });
    }
    inFlight++;
    try {
      const response = await handler(request);
      if (closing) response.headers.set("connection", "close");
      return response;
    } finally {
      inFlight--;
    }
  };
  const drain = async () => {
    closing = true;
    const started = Date.now();
    lastArrival = started;
    const quiet = () => Date.now() - lastArrival >= QUIET_MS || Date.now() - started >= QUIET_WAIT_LIMIT_MS;
    while (inFlight > 0 || !quiet()) await new Promise((wait) => setTimeout(wait, 20));
  };
  return { handler: wrapped, drain };
}
