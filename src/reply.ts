/**
 * @module
 * The plain reply the core produces (status, headers, JSON text) and its conversion to a `Response`.
 *
 * Handlers build a `Reply` rather than a `Response` so that an adapter which writes to a socket
 * itself (Node's `http`) can skip constructing and then re-reading a `Response`, which costs more
 * than half the throughput there. Everyone else calls `toResponse`.
 */

/** A finished HTTP answer: status, headers and a body that is JSON text, or empty. */
export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A reply carrying `value` as JSON with the given status and any extra headers. */
export function jsonReply(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return jsonTextReply(status, JSON.stringify(value), headers);
}

/** A reply carrying JSON text already written. */
export function jsonTextReply(status: number, json: string, headers?: Record<string, string>): Reply {
  return { status, headers: { "content-type": "application/json", ...headers }, body: json };
}

const encoder = new TextEncoder();

/** Converts a reply to a Fetch API `Response`; for HEAD the body is left out but its length kept. */
export function toResponse(reply: Reply, method: string): Response {
  if (method !== "HEAD") {
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  }
  const length = String(encoder.encode(reply.body).byteLength);
  return new Response(null, {
    status: reply.status,
    headers: { ...reply.headers, "content-length": length },
  });
}
