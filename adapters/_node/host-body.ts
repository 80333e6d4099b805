/**
 * @module
 * Private to the Node adapter: the request body when a host's body parser read it before the
 * bridge, as Express apps with `app.use(express.json())` first do. The stream is spent by then, so
 * the body is taken from what the parser left on `request.body`.
 *
 * What is lost: `express.raw()` leaves the bytes as sent, `express.text()` the decoded text, but
 * `express.json()` leaves only what `JSON.parse` made of them, so the body is written back with
 * `JSON.stringify`. A number's spelling is gone (`1.0`, `1e0` and `1.0000000000000001` all come
 * back as `1`), and so is whitespace. The README's decisions table says what that costs.
 */
import type { IncomingMessage } from "node:http";
import type { Validation } from "../../src/validation.ts";
import { errorResponse } from "../../src/errors.ts";

const HOST_READ_THE_BODY = "a body parser before this handler already read the request body";

/** How to have the body as sent, for messages. */
const MOUNT_FIRST = "mount the handler before body parsers such as express.json() (in Fastify, in a plugin with no content-type parsers; see the README)";

/** Why a body a host's parser read cannot be handed on, and the answer that says so. */
export interface HostBodyRefusal {
  /** Why, for the log. */
  readonly reason: string;
  /** 500 `internal_error` when the host kept nothing usable (its doing), 400 `invalid_body` when the body nests too deep (the client's). */
  readonly answer: Response;
}

/**
 * The body a host's parser left on `request.body`: its bytes (`express.raw()`), its text
 * (`express.text()`), or a parsed value written back as JSON (`express.json()`). Refused when
 * there is nothing usable there (a parser that keeps nothing, or Fastify, which keeps the body on
 * its own request object), or when the value nests too deep for `JSON.stringify`, which recurses
 * where `JSON.parse` did not (about 5,000 levels on Node 20; the service refuses such a body anyway).
 */
export function hostParsedBody(incoming: IncomingMessage): Validation<Uint8Array | string, HostBodyRefusal> {
  const parsed = (incoming as IncomingMessage & { body?: unknown }).body;
  if (parsed instanceof Uint8Array || typeof parsed === "string") return { ok: true, value: parsed };
  let text: string | undefined;
  try {
    text = parsed === undefined ? undefined : JSON.stringify(parsed);
  } catch (error) {
    if (error instanceof RangeError) return refused("invalid_body", `${HOST_READ_THE_BODY}, and it nests too deep to be written back as JSON; ${MOUNT_FIRST}`);
  }
  // Nothing there, or a value JSON cannot write (a function, a cycle, a BigInt): a host's doing.
  if (text === undefined) return refused("internal_error", `${HOST_READ_THE_BODY} and left nothing usable on request.body; ${MOUNT_FIRST}`);
  return { ok: true, value: text };
}

function refused(code: "internal_error" | "invalid_body", reason: string): Validation<never, HostBodyRefusal> {
  return { ok: false, issues: { reason, answer: errorResponse(code, `Cannot read the request body: ${reason}`) } };
}

/** What the bridge reports, once, when it hands on a body a host's parser read. */
export const HOST_BODY_TAKEN: string = `${HOST_READ_THE_BODY}, so the handler gets what the parser made of it (JSON written back from the parsed value: 1.0 arrives as 1) and the parser's own errors, such as bad JSON, are answered by the host; ${MOUNT_FIRST} to have the body as sent`;
