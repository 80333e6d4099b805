/**
 * @module
 * How an operation declares its answers for the document: an answer with its headers and body
 * schema, an error answer with its codes and the messages the service sends, and references to the
 * components every operation shares (`_components.ts`). An operation's module holds its answers
 * written with these, beside its handler.
 */
import type { Json } from "../types.ts";
import type { ErrorCode } from "../errors.ts";
import { ERROR_STATUS } from "../errors.ts";

type JsonObject = { readonly [key: string]: Json };

const json = "application/json";

/** A `$ref` to a component. */
export function ref(kind: "schemas" | "parameters" | "headers" | "responses", name: string): JsonObject {
  return { $ref: `#/components/${kind}/${name}` };
}

/** Headers any answer may carry, each off unless its feature is on; a header a feature adds to every answer is declared here. */
export const ANSWER_HEADERS: JsonObject = {
  "X-Request-Id": ref("headers", "RequestId"),
  "RateLimit-Policy": ref("headers", "RateLimit-Policy"),
  RateLimit: ref("headers", "RateLimit"),
  "Server-Timing": ref("headers", "Server-Timing"),
  "Access-Control-Allow-Origin": ref("headers", "Access-Control-Allow-Origin"),
  "Access-Control-Expose-Headers": ref("headers", "Access-Control-Expose-Headers"),
  Vary: ref("headers", "Vary"),
};

/** The answers every operation may give, written once in the components: 401, 429, 500 and 503 (403 only where a read-only key is refused: `WRITE_ANSWERS`). */
export const COMMON_ANSWERS: Readonly<Record<"401" | "429" | "500" | "503", JsonObject>> = {
  "401": ref("responses", "Unauthorized"),
  "429": ref("responses", "TooManyRequests"),
  "500": ref("responses", "InternalError"),
  "503": ref("responses", "ServiceUnavailable"),
};

/** The answer every operation a read-only key may not use declares: 403 (`auth.ts`, `mayUse`). */
export const WRITE_ANSWERS: Readonly<Record<"403", JsonObject>> = { "403": ref("responses", "InsufficientScope") };

/** The `X-Request-Id` and `If-None-Match` request parameters, as an operation lists them. */
export const REQUEST_ID: JsonObject = ref("parameters", "RequestId");
/** See `REQUEST_ID`. */
export const IF_NONE_MATCH: JsonObject = ref("parameters", "IfNoneMatch");

/** The service's answer to a Host header it cannot read, as an example. */
export const HOST_MESSAGE = 'Cannot answer GET: "Host" must be a host name or IP address with an optional port, got "a b"';

/** An answer: its description, its own headers (which win) beside `ANSWER_HEADERS`, and a JSON body schema if it has one. */
export function answer(description: string, headers: JsonObject = {}, schema?: Json): JsonObject {
  const all = { ...ANSWER_HEADERS, ...headers };
  return schema === undefined ? { description, headers: all } : { description, headers: all, content: { [json]: { schema } } };
}

/**
 * An answer carrying the error object, for the codes of one status, each given with a message the
 * service sends: the schema pins `code` and `status` to them, and each code has its own example, so a
 * mock made from the document answers what the service would.
 */
export function errorAnswer(description: string, messages: Partial<Record<ErrorCode, string>>, headers: JsonObject = {}): JsonObject {
  const codes = Object.keys(messages) as ErrorCode[];
  const pinned = {
    properties: {
      // Several codes as a choice of constants, not an `enum`: Prism's dynamic mock joins an `enum` to Error's and picks any code.
      code: codes.length === 1 ? { const: codes[0]! } : { oneOf: codes.map((code) => ({ const: code })) },
      status: { const: ERROR_STATUS[codes[0]!] },
    },
  };
  const examples = Object.fromEntries(codes.map((code) => [code, { value: { code, message: messages[code]!, status: ERROR_STATUS[code] } }]));
  return { ...answer(description, headers), content: { [json]: { schema: { allOf: [ref("schemas", "Error"), pinned] }, examples } } };
}

/** The same answer without a body, as HEAD gets it. */
export function withoutBody(response: JsonObject): JsonObject {
  const { content: _content, ...rest } = response;
  return rest;
}

/** The same answer with more headers. */
export function withHeaders(response: JsonObject, headers: JsonObject): JsonObject {
  return { ...response, headers: { ...(response["headers"] as JsonObject), ...headers } };
}

/** Answers shared by operations, as the components declare them (`COMMON_ANSWERS` refers to four of them). */
export const RESPONSES: Record<string, JsonObject> = {
  Unauthorized: errorAnswer(
    "Missing, unknown or expired API key (`code` unauthorized; an expired key's message says when it expired). Checked before anything else.",
    { unauthorized: "Missing API key: send it as Authorization: Bearer <key>" },
    { "WWW-Authenticate": ref("headers", "WWW-Authenticate") },
  ),
  InsufficientScope: errorAnswer(
    "The API key has scope read, which allows GET and HEAD only (`code` insufficient_scope); use a key of scope write. " +
      "Checked once the operation is known: an unknown path or method answers 404 or 405 first.",
    { insufficient_scope: "Cannot POST /v1/pets: this API key may only read (scope read: GET, HEAD, OPTIONS); use a key of scope write" },
    { "WWW-Authenticate": ref("headers", "WWW-Authenticate") },
  ),
  TooManyRequests: errorAnswer(
    "Only when a rate limit is configured (RATE_LIMIT; off by default, and then never answered): the key, or the client " +
      "address when there is no valid key, has used its quota (`code` rate_limited); the message names the limit and when to retry.",
    { rate_limited: "Cannot GET /v1/pets: this API key has used up the rate limit of 100 requests per second, in bursts of up to 200; retry in 1 s" },
    { "Retry-After": ref("headers", "Retry-After") },
  ),
  InternalError: errorAnswer("Unexpected error (`code` internal_error); logged, never detailed in the body.", {
    internal_error: "An unexpected error occurred",
  }),
  ServiceUnavailable: errorAnswer(
    "The store cannot serve the request now (`code` service_unavailable): its data file could not be written " +
      "or was taken away (the message says what to do), its database is unavailable (retry; it recovers by " +
      "itself; a create whose outcome is unknown says so), or the server is shutting down.",
    { service_unavailable: "The server is shutting down; retry on a new connection" },
  ),
  MethodNotAllowed: errorAnswer(
    "The path does not offer this method (`code` method_not_allowed).",
    { method_not_allowed: "Cannot OPTIONS /v1/pets: allowed methods are GET, HEAD, POST" },
    { Allow: { description: "The methods the path offers.", schema: { type: "string", maxLength: 64, pattern: "^[A-Z]+(, [A-Z]+)*$" } } },
  ),
  InvalidHost: errorAnswer(
    'The Host header is not a host name or IP address with an optional port (`code` invalid_header), checked before anything else.',
    { invalid_header: HOST_MESSAGE },
  ),
};
