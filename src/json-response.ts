/**
 * @module
 * How the service builds a JSON response: the text with its media type. A tagged 200 (`etag.ts`)
 * gets the same headers from the app's memory of its texts, as one frozen record.
 */

/** A response carrying JSON text already written, with the given status and any extra headers. */
export function jsonResponse(status: number, json: string, headers?: Record<string, string>): Response {
  return new Response(json, { status, headers: { "content-type": "application/json", ...headers } });
}
