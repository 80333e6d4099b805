/**
 * @module
 * Private to the OpenAPI document: its components, what operations share (schemas, parameters,
 * headers, responses). Every value the service reads from a request is written as exactly as JSON
 * Schema can say it, here or in the operation that reads it; what it cannot say is in `_rules.ts`.
 */
import type { Json } from "../types.ts";
import { ERROR_STATUS } from "../errors.ts";
import { MAX_EXACT_INTEGER, NAME_MAX_LENGTH, PET_STATUSES } from "../pet.ts";
import { ref } from "./answers.ts";

type JsonObject = { readonly [key: string]: Json };

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

/** The one spelling of an integer the service reads in a path or a query: plain decimal (ECMA-262, anchored). */
export const INTEGER_SPELLING = "^(?:0|[1-9][0-9]*)$";

/** The Content-Encoding parameter of every operation with a JSON body: `read-body.ts` refuses any but identity. */
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
    description:
      'Bearer challenge (RFC 6750): error="invalid_token" when a bearer token was sent (with error_description="The access token expired" ' +
      'for an expired key), error="insufficient_scope" and the scope needed when the key may not use the operation.',
    schema: {
      type: "string",
      maxLength: 1024,
      pattern: '^Bearer realm="[^"]*"(, error="invalid_token"(, error_description="The access token expired")?|, error="insufficient_scope", scope="write")?$',
    },
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
