/**
 * @module
 * Serves the app with `Bun.serve`.
 */
import type { Serve, Server } from "./server.ts";
import { internalErrorResponse } from "../src/errors.ts";

/** Serves an app on Bun; `app.fetch` goes to `Bun.serve` unchanged. */
export const serveBun: Serve = async (app, options) => {
  const server = Bun.serve({
    port: options.port,
    hostname: options.hostname,
    // Without these, a throw answers with an HTML page holding the source code.
    development: false,
    error(error) {
      app.onError(error);
      return internalErrorResponse();
    },
    fetch: app.fetch,
  });
  const handle: Server = { port: server.port ?? options.port, close: () => server.stop() };
  return handle;
};
