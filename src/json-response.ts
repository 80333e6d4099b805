/**
 * @module
 * The one way the service builds a response: JSON text with its media type.
 */

/** A response carrying JSON text already written, with the given status and any extra headers. */
export function jsonResponse(status: number, json: string, headers?: Record<string, string>): Response {
  return new Response(json, { status, headers: { "content-type": "application/json", ...headers } });
}
