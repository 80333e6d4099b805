/**
 * @module
 * `Server-Timing` (W3C Server Timing): every answer says how long the service took to make it, as
 * `Server-Timing: app;dur=0.412` (milliseconds), which browsers' developer tools show beside the
 * request. A wrap (the answer seam, see `src/types.ts`), on with `SERVER_TIMING=on`; off by default,
 * since it tells every client how long its request spent inside the server.
 */
import type { Wrap } from "../../src/mod.ts";
import { setHeaders } from "../../src/mod.ts";

/** Gives every answer `Server-Timing: app;dur=<ms>`: the time from the request reaching the app to its answer being ready. */
export const serverTiming: Wrap = (app) => ({
  fetch(request, connection) {
    const started = performance.now();
    return app.fetch(request, connection).then((response) => setHeaders(response, { "server-timing": `app;dur=${(performance.now() - started).toFixed(3)}` }));
  },
  onError: app.onError,
});
