/**
 * @module
 * Private to the access log: the request ids. The log's wrap decides a request's id before the app
 * runs; the log's plug gives it as `X-Request-Id` in its `headers` step, which the app asks before
 * routing and puts on every answer it makes (the plugs', the 401, 404, 405, 413, 429, 500 and 503
 * too), so the answer's headers are never touched after it is made. Setting it on the answer
 * afterwards (`setHeaders`) was one more `Headers` on Bun and Deno and one more header record on
 * Node: the plug gained (`bench/RESULTS.md`, "Issue 53, second round": the access log).
 */
import type { Plug } from "../../src/mod.ts";

/** The ids of the requests being answered, and the plug that sends them back. */
export interface RequestIds {
  /** Decides `request`'s id: the client's own when it is a short token (a proxy's id follows the request through), else a new one. */
  decide(request: Request): string;
  /** The id decided for `request`, or `undefined` when none was. */
  of(request: Request): string | undefined;
  /** Gives every answer to a request with an id its `X-Request-Id`; a request the wrap passed by (a quiet probe) gets none. */
  readonly plug: Plug;
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A table of request ids, ids made by `createIdMaker` unless the client gave one. */
export function createRequestIds(): RequestIds {
  const nextId = createIdMaker();
  // Weak: an id lives as long as its request, which the runtime drops once answered.
  const ids = new WeakMap<Request, string>();
  function decide(request: Request): string {
    const given = request.headers.get("x-request-id");
    const id = given !== null && CLIENT_REQUEST_ID.test(given) ? given : nextId();
    ids.set(request, id);
    return id;
  }
  const of = (request: Request) => ids.get(request);
  const plug: Plug = () => ({
    name: "request-id",
    headers: (request) => {
      const id = ids.get(request);
      // Its own record per request: no answer shares a mutable object with another.
      return id === undefined ? undefined : { "x-request-id": id };
    },
  });
  return { decide, of, plug };
}

/**
 * Request ids as UUIDv8 (RFC 9562 §5.8): 74 random bits drawn once per log, then a 48-bit counter,
 * so ids are unique across servers and restarts: `crypto.randomUUID` per request was 0.26–0.45 µs,
 * this 0.08–0.1 µs (Bun 1.4, Node 20, in-process).
 */
function createIdMaker(): () => string {
  const random = crypto.randomUUID();
  // Keep the random bits, mark the version 8 (the variant bits stay those of the v4 drawn).
  const prefix = `${random.slice(0, 14)}8${random.slice(15, 24)}`;
  let count = 0;
  return () => `${prefix}${(++count).toString(16).padStart(12, "0")}`;
}
