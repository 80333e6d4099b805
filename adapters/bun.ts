/**
 * @module
 * Serves the app with `Bun.serve`.
 */
import type { Serve, Server } from "./server.ts";
import { toResponse } from "../src/mod.ts";
import { INTERNAL_ERROR } from "./server.ts";

/** Serves an app on Bun; `app.fetch` goes to `Bun.serve` unchanged. */
export const serveBun: Serve = (app, options) => {
  const server = Bun.serve({
    port: options.port,
    hostname: options.hostname,
    // Without these, a throw answers with an HTML page holding the source code.
    development: false,
    error(error) {
      options.onError?.(error);
      return toResponse(INTERNAL_ERROR, "GET");
    },
    fetch: app.fetch,
  });
  const handle: Server = { port: server.port ?? options.port, close: () => server.stop() };
  return Promise.resolve(handle);
};
