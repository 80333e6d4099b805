/**
 * @module
 * Private to the OpenAPI document: its components (schemas, parameters, headers, responses) and the
 * helpers that build responses from them. Every value the service reads from a request is written
 * here as exactly as JSON Schema can say it; what it cannot say is in `_rules.ts`.
 */
import type { Json } from "../types.ts";
import type { ErrorCode } from "../errors.ts";
import { ERROR_STATUS } from "../errors.ts";
import { IDEMPOTENCY_KEY_MAX_LENGTH } from "../idempotency.ts";
import { MAX_EXACT_INTEGER, NAME_MAX_LENGTH, PET_STATUSES } from "../pet.ts";
import { LIMIT } from "../validate-list-query.ts";

type JsonObject = { readonly [key: string]: Json };

const json = "application/json";
/** A `$ref` to a component. */
export function ref(kind: "schemas" | "parameters" | "headers" | "responses", name: string): JsonObject {
  return { $ref: `#/components/${kind}/${name}` };
}

/** The longest request header value: Node's default limit for all of a request's headers together. */
export const HEADER_MAX_LENGTH = 16384;
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const TOKEN_LIST = `^${TOKEN}(?:[ \\t]*,[ \\t]*${TOKEN})*$`;
// A Structured Field (RFC 9651) list of items with parameters, as the rate-limit headers are.
const SF_BARE = "[A-Za-z*][!#$%&'*+.^_`|~0-9A-Za-z:/-]*";
const SF_STRING = '"[ !#-\\[\\]-~]*"';
const SF_VALUE = `(?:-?[0-9]{1,15}(?:\\.[0-9]{1,3})?|${SF_STRING}|${SF_BARE}|:[A-Za-z0-9+/=]*:|\\?[01])`;
const SF_ITEM = `(?:${SF_STRING}|${SF_BARE})(?:;[a-z*][a-z0-9_.*-]*(?:=${SF_VALUE})?)*`;
const SF_LIST = `^${SF_ITEM}(?:[ \\t]*,[ \\t]*${SF_ITEM})*$`;
/** The control characters a name may not hold (C0, DEL and C1), as a character-class range. */
const CONTROLS = "\\u0000-\\u001F\\u007F-\\u009F";
// One character of a name: any code unit but a control character or a surrogate, or a surrogate
// pair. Written so a pattern means the same with and without the `u` flag.
const NAME_CHARACTER = `(?:[^${CONTROLS}\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])`;

/** Headers any answer may carry, each off unless its feature is on. */
export const ANSWER_HEADERS: JsonObject = {
  "X-Request-Id": ref("headers", "RequestId"),
  "RateLimit-Policy": ref("headers", "RateLimit-Policy"),
  RateLimit: ref("headers", "RateLimit"),
  "Server-Timing": ref("headers", "Server-Timing"),
  "Access-Control-Allow-Origin": ref("headers", "Access-Control-Allow-Origin"),
  "Access-Control-Expose-Headers": ref("headers", "Access-Control-Expose-Headers"),
  Vary: ref("headers", "Vary"),
};

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

/** Request parameters shared by operations. */
export const PARAMETERS: Record<string, Json> = {
  RequestId: {
    name: "X-Request-Id",
    in: "header",
    required: false,
    description:
      "The standalone server logs each request under an id and answers it as X-Request-Id; a client's own id " +
      "is kept when it is 1 to 128 letters, digits and ._:- (anything else is replaced by a new id, never refused).",
    schema: { type: "string", maxLength: HEADER_MAX_LENGTH, pattern: "^[\\t\\x20-\\x7E\\x80-\\xFF]*$" },
  },
  IfNoneMatch: {
    name: "If-None-Match",
    in: "header",
    required: false,
    description: "Entity tags the client holds, or *: when one is the answer's ETag (weak comparison), the answer is 304. Any other value is ignored.",
    schema: { type: "string", maxLength: HEADER_MAX_LENGTH, pattern: "^[\\t\\x20-\\x7E\\x80-\\xFF]*$" },
  },
  Origin: {
    name: "Origin",
    in: "header",
    required: true,
    description: "The origin of the page that asks (sent by the browser).",
    schema: { type: "string", maxLength: 2048, pattern: "^(?:null|[A-Za-z][A-Za-z0-9+.-]*://[^\\s/?#]+)$" },
  },
  AccessControlRequestMethod: {
    name: "Access-Control-Request-Method",
    in: "header",
    required: true,
    description: "The method the page means to use.",
    schema: { type: "string", maxLength: 32, pattern: `^${TOKEN}$` },
  },
  AccessControlRequestHeaders: {
    name: "Access-Control-Request-Headers",
    in: "header",
    required: false,
    description: "The headers the page means to send.",
    schema: { type: "string", maxLength: 1024, pattern: TOKEN_LIST },
  },
};

/** The request and answer body schemas. */
export const SCHEMAS: Record<string, Json> = {
  PetStatus: {
    type: "string",
    enum: [...PET_STATUSES],
    description: "Availability of a pet.",
  },
  PetName: {
    type: "string",
    minLength: 1,
    maxLength: NAME_MAX_LENGTH,
    // Any white space, then one character that is not, then anything: all of it well-formed.
    // White space that is no control character, then one character that is neither, then any but controls: all of it well-formed.
    pattern: `^[^\\S${CONTROLS}]*(?:[^\\s${CONTROLS}\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])${NAME_CHARACTER}*$`,
    description: `Not only whitespace; no control characters (U+0000 to U+001F, U+007F to U+009F: 400 on create); at most ${NAME_MAX_LENGTH} characters (Unicode code points); well-formed Unicode (no lone surrogate); stored as sent.`,
    examples: ["Rex"],
  },
  CategoryId: {
    type: "integer",
    format: "int64",
    minimum: -MAX_EXACT_INTEGER,
    maximum: MAX_EXACT_INTEGER,
    description:
      "Written as a plain integer (no fraction or exponent: 1.0 and 1e2 are refused although their values are whole; " +
      "see x-request-rules). Values JavaScript cannot hold exactly are refused, never rounded.",
    examples: [1],
  },
  NewPet: {
    type: "object",
    description: "A pet as a client sends it. Any other member (id included) is refused; a member given twice counts once, with its last value.",
    required: ["name", "categoryId"],
    additionalProperties: false,
    properties: {
      name: ref("schemas", "PetName"),
      categoryId: ref("schemas", "CategoryId"),
      status: { $ref: "#/components/schemas/PetStatus", description: "Optional; no default: left out, it stays out." },
    },
  },
  Pet: {
    type: "object",
    description: "A stored pet: a NewPet plus its id.",
    required: ["id", "name", "categoryId"],
    additionalProperties: false,
    properties: {
      id: {
        type: "integer",
        format: "int64",
        minimum: 1,
        maximum: MAX_EXACT_INTEGER,
        description: "Assigned by the service; ascending in creation order.",
      },
      name: ref("schemas", "PetName"),
      categoryId: ref("schemas", "CategoryId"),
      status: ref("schemas", "PetStatus"),
    },
  },
  Error: {
    type: "object",
    required: ["code", "message", "status"],
    additionalProperties: false,
    properties: {
      code: { type: "string", enum: Object.keys(ERROR_STATUS) },
      message: {
        type: "string",
        maxLength: 131072,
        pattern: "^[^\\n\\r]*$",
        description: "For people: names every problem found (the first five, then how many more). May quote the request's path.",
      },
      status: { type: "integer", format: "int32", minimum: 400, maximum: 599, enum: [...new Set(Object.values(ERROR_STATUS))].sort(), description: "Repeats the HTTP status." },
    },
  },
};

/**
 * Path and query integers, declared as the interface declares them, so generated clients send numbers.
 * The service reads only their plain decimal spelling, which a schema cannot say: see `INTEGER_SPELLING`.
 */
export const INTEGERS: Readonly<Record<"limit" | "after" | "petId", JsonObject>> = {
  /** A page size. */
  limit: { type: "integer", format: "int32", minimum: LIMIT.min, maximum: LIMIT.max, default: LIMIT.default, examples: [LIMIT.default] },
  /** A pet id as a cursor; 0 is the start. */
  after: { type: "integer", format: "int64", minimum: 0, maximum: MAX_EXACT_INTEGER, default: 0, examples: [0] },
  /** A pet id. */
  petId: { type: "integer", format: "int64", minimum: 1, maximum: MAX_EXACT_INTEGER, examples: [1] },
};

/** The one spelling of an integer the service reads in a path or a query: plain decimal (ECMA-262, anchored). */
export const INTEGER_SPELLING = "^(?:0|[1-9][0-9]*)$";

/** The Idempotency-Key parameter of createPet. */
export const IDEMPOTENCY_KEY: Json = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    `Makes a retry safe: 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters other than quotes and backslashes ` +
    "(a UUID, say), bare or as a structured-field string in double quotes. Scoped to the API key.",
  schema: {
    type: "string",
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX_LENGTH + 2,
    pattern: `^([!#-\\[\\]-~]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}|"[!#-\\[\\]-~]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}")$`,
  },
};

/** The Content-Encoding parameter of createPet. */
export const CONTENT_ENCODING: Json = {
  name: "Content-Encoding",
  in: "header",
  required: false,
  description: "Only identity (any case): a compressed body is refused with 415.",
  schema: { type: "string", maxLength: 8, pattern: "^[Ii][Dd][Ee][Nn][Tt][Ii][Tt][Yy]$" },
};

const integerText = (max: number, description: string): JsonObject => ({ description, schema: { type: "string", maxLength: String(max).length, pattern: `^[0-9]{1,${String(max).length}}$` } });

/** The answer headers. */
export const HEADERS: Record<string, Json> = {
  ETag: {
    description: "Strong entity tag of the body (a hash of its bytes); send it back in If-None-Match.",
    schema: { type: "string", maxLength: 18, pattern: '^"[0-9a-f]{16}"$' },
  },
  RequestId: {
    description: "The id the standalone server logged this request under (absent when its access log is off).",
    schema: { type: "string", maxLength: 128, pattern: "^[A-Za-z0-9._:-]{1,128}$" },
  },
  "WWW-Authenticate": {
    required: true,
    description: 'Bearer challenge (RFC 6750); error="invalid_token" when a bearer token was sent.',
    schema: { type: "string", maxLength: 1024, pattern: '^Bearer realm="[^"]*"(, error="invalid_token")?$' },
  },
  NextLink: {
    description: "RFC 8288 link to the next page, present when a further pet exists.",
    schema: { type: "string", maxLength: 8192, pattern: '^<[^>]+>; rel="next"$' },
  },
  Location: {
    required: true,
    description: "Absolute URL of the created pet.",
    schema: { type: "string", maxLength: 8192, format: "uri", pattern: "/pets/[1-9][0-9]*$" },
  },
  Deprecation: {
    required: true,
    description: "RFC 9745: deprecated since 2026-11-22 (the interface gives no date).",
    schema: { type: "string", maxLength: 21, pattern: "^@[0-9]+$" },
  },
  Sunset: {
    required: true,
    description: "RFC 8594: removal date.",
    schema: { type: "string", const: "Thu, 05 Dec 2030 00:00:00 GMT" },
  },
  SuccessorLink: {
    required: true,
    description: "Link to the replacement operation, GET /pets.",
    schema: { type: "string", maxLength: 8192, pattern: '^<[^>]+/pets>; rel="successor-version"$' },
  },
  "RateLimit-Policy": {
    description:
      "Only when a rate limit is configured (RATE_LIMIT; off by default): the quota policy of the key (or, without a valid key, " +
      'the client address), as in IETF draft-ietf-httpapi-ratelimit-headers, e.g. `"default";q=100;w=1` (100 requests a second).',
    schema: { type: "string", maxLength: 1024, pattern: SF_LIST },
  },
  RateLimit: {
    description:
      'Only when a rate limit is configured: what is left of the quota, e.g. `"default";r=42;t=1` (42 more requests, ' +
      "the window resets in 1 second), as in IETF draft-ietf-httpapi-ratelimit-headers.",
    schema: { type: "string", maxLength: 1024, pattern: SF_LIST },
  },
  "Server-Timing": {
    description:
      "Only when the standalone server's SERVER_TIMING is on (off by default): how long the service took to make the answer, " +
      "in milliseconds, as W3C Server Timing, e.g. `app;dur=0.412`.",
    schema: { type: "string", maxLength: 64, pattern: "^app;dur=[0-9]{1,12}\\.[0-9]{3}$" },
  },
  "Access-Control-Allow-Origin": {
    description:
      "Only when CORS is configured (CORS_ORIGINS; off by default) and the request's Origin is allowed: that origin, " +
      "or * when every origin is.",
    schema: { type: "string", maxLength: 2048, pattern: "^(?:\\*|null|[A-Za-z][A-Za-z0-9+.-]*://[^\\s/?#]+)$" },
  },
  "Access-Control-Expose-Headers": {
    description: "With CORS on: the answer headers a page may read, every one this document declares on an answer beyond the CORS-safelisted ones.",
    schema: { type: "string", maxLength: 1024, pattern: TOKEN_LIST },
  },
  Vary: {
    description: "With CORS on and a list of origins: Origin, since the answer depends on it.",
    schema: { type: "string", maxLength: 1024, pattern: `^(?:\\*|${TOKEN_LIST.slice(1, -1)})$` },
  },
  "Access-Control-Allow-Methods": {
    required: true,
    description: "The methods the path offers.",
    schema: { type: "string", maxLength: 1024, pattern: TOKEN_LIST },
  },
  "Access-Control-Allow-Headers": {
    required: true,
    description: "The request headers a page may send: Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id.",
    schema: { type: "string", maxLength: 1024, pattern: TOKEN_LIST },
  },
  "Access-Control-Max-Age": { ...integerText(9999999999, "How many seconds a browser may keep this preflight's answer."), required: true },
  "Retry-After": {
    required: true,
    description: "Seconds to wait before the next request is allowed.",
    schema: { type: "string", maxLength: 10, pattern: "^[0-9]{1,10}$" },
  },
};

/** The service's answer to a Host header it cannot read, as an example. */
export const HOST_MESSAGE = 'Cannot answer GET: "Host" must be a host name or IP address with an optional port, got "a b"';

/** Answers shared by operations. */
export const RESPONSES: Record<string, JsonObject> = {
  Unauthorized: errorAnswer(
    "Missing or invalid API key (`code` unauthorized). Checked before anything else.",
    { unauthorized: "Missing API key: send it as Authorization: Bearer <key>" },
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
