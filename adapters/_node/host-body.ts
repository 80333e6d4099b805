/**
 * @module
 * Private to the Node adapter: the request body when a host's body parser read it before the
 * bridge, as Express apps with `app.use(express.json())` first do. The stream is spent by then, so
 * the body is taken from what the parser left on `request.body`.
 *
 * What is lost: `express.raw()` leaves the bytes as sent, `express.text()` the decoded text, but
 * `express.json()` leaves only what `JSON.parse` made of them, so the body is written back with
 * `JSON.stringify`. A number's spelling is gone (`1.0`, `1e0` and `1.0000000000000001` all come
 * back as `1`), and so is whitespace. `docs/decisions.md` says what that costs.
 *
 * Text is handed on only when it is provably the body as sent: as many UTF-8 bytes as the
 * `Content-Length`. Any other string is what `express.json({ strict: false })` made of a JSON
 * string, and is written back as one (the service refuses it: not an object). A parser puts U+FFFD
 * for bytes that are not UTF-8, so a body holding it is refused, as the service refuses such bytes.
 *
 * Koa's `@koa/bodyparser` and Fastify keep what they read on their own request objects, which the
 * bridge never sees; only mounting the handler before the parser helps there.
 */
import { Buffer } from "node:buffer";
import type { IncomingMessage } from "node:http";
import type { Refusable } from "../../src/validation.ts";
import { errorResponse } from "../../src/errors.ts";

const HOST_READ_THE_BODY = "a body parser before this handler already read the request body";

/** How to have the body as sent, for messages about Express. */
const MOUNT_FIRST_EXPRESS = "mount the handler before body parsers such as express.json()";

/** Where Koa and Fastify keep a body they read, and how to have it as sent. */
const KEPT_ON_HOST_REQUEST = "kept it on its host's own request (Koa's @koa/bodyparser on ctx.request.body, Fastify on request.body); " +
  "mount the handler before the parser: in Koa, app.use() it before bodyParser(); in Fastify, register it in a plugin with no content-type parsers";

/** Why a body a host's parser read cannot be handed on, and the answer that says so. */
export interface HostBodyRefusal {
  /** Why, for the log. */
  readonly reason: string;
  /** 500 `internal_error` when the host kept nothing usable (its doing), 400 `invalid_body` when the body cannot be what a client may send. */
  readonly answer: Response;
}

type ParsedRequest = IncomingMessage & { body?: unknown; app?: unknown };

/**
 * The body a host's parser left on `request.body`: its bytes (`express.raw()`), its text as sent
 * (`express.text()`), or a parsed value written back as JSON (`express.json()`). Refused when
 * there is nothing usable there (Koa's and Fastify's parsers keep the body on their own request
 * objects), when it holds U+FFFD (bytes that were not UTF-8), or when the value nests too deep for
 * `JSON.stringify`, which recurses where `JSON.parse` did not (about 5,000 levels on Node 20; the
 * service refuses such a body anyway).
 */
export function hostParsedBody(incoming: IncomingMessage): Refusable<Uint8Array | string, HostBodyRefusal> {
  const { body: parsed, app } = incoming as ParsedRequest;
  if (parsed instanceof Uint8Array) return { ok: true, value: parsed };
  const mountFirst = typeof app === "function" ? MOUNT_FIRST_EXPRESS : undefined;
  let text: string | undefined;
  try {
    text = typeof parsed === "string" && isAsSent(parsed, incoming) ? parsed : parsed === undefined ? undefined : JSON.stringify(parsed);
  } catch (error) {
    if (error instanceof RangeError) {
      return refused("invalid_body", `${HOST_READ_THE_BODY}, and it nests too deep to be written back as JSON; ${mountFirst ?? MOUNT_FIRST_EXPRESS}`);
    }
  }
  // Nothing there, or a value JSON cannot write (a function, a cycle, a BigInt): a host's doing.
  if (text === undefined) {
    return refused("internal_error", mountFirst === undefined ? `${HOST_READ_THE_BODY} and ${KEPT_ON_HOST_REQUEST}` : `${HOST_READ_THE_BODY} and left nothing usable on req.body; ${mountFirst}`);
  }
  if (text.includes("\uFFFD")) {
    return refused("invalid_body", `${HOST_READ_THE_BODY}, and what it left holds U+FFFD, which parsers put for bytes that are not UTF-8; ${mountFirst ?? MOUNT_FIRST_EXPRESS}`);
  }
  return { ok: true, value: text };
}

/** Whether a parser's text is the body as sent: as many UTF-8 bytes as the request declared. */
function isAsSent(text: string, incoming: IncomingMessage): boolean {
  const declared = incoming.headers["content-length"];
  return declared !== undefined && Buffer.byteLength(text) === Number(declared);
}

function refused(code: "internal_error" | "invalid_body", reason: string): Refusable<never, HostBodyRefusal> {
  return { ok: false, refusal: { reason, answer: errorResponse(code, `Cannot read the request body: ${reason}`) } };
}

/** What the bridge reports, once, when it hands on a body a host's parser read. */
export const HOST_BODY_TAKEN: string = `${HOST_READ_THE_BODY}, so the handler gets what the parser made of it (JSON written back from the parsed value: 1.0 arrives as 1) and the parser's own errors, such as bad JSON, are answered by the host; ${MOUNT_FIRST_EXPRESS} to have the body as sent`;
