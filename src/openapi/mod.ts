/**
 * @module
 * The OpenAPI 3.1 document of the interface: the single source for generated clients, gateways and
 * portals, served at `{basePath}/openapi.json`. Every decision the interface leaves open (see
 * docs/decisions.md) is written here too, as schemas wherever JSON Schema can say it; the few rules it
 * cannot are in the `x-request-rules` extension (`_rules.ts`). `test/openapi.test.ts`
 * checks the document against the code, and `conformance/` holds the service to it.
 */
import type { Json } from "../types.ts";
import {
  answer,
  CONTENT_ENCODING,
  errorAnswer,
  HEADERS,
  HOST_MESSAGE,
  IDEMPOTENCY_KEY,
  INTEGERS,
  PARAMETERS,
  ref,
  RESPONSES,
  SCHEMAS,
  withHeaders,
  withoutBody,
} from "./_components.ts";
import { REQUEST_RULES } from "./_rules.ts";

type JsonObject = { readonly [key: string]: Json };

const deprecationHeaders = {
  Deprecation: ref("headers", "Deprecation"),
  Sunset: ref("headers", "Sunset"),
  Link: ref("headers", "SuccessorLink"),
};
const requestId = ref("parameters", "RequestId");
const ifNoneMatch = ref("parameters", "IfNoneMatch");
const common = {
  "401": ref("responses", "Unauthorized"),
  "429": ref("responses", "TooManyRequests"),
  "500": ref("responses", "InternalError"),
  "503": ref("responses", "ServiceUnavailable"),
};

const listPets: JsonObject = {
  operationId: "listPets",
  summary: "List animals",
  description:
    "Pets in ascending id order. Pages: pass the id of the last pet seen as `after`, or follow the " +
    "`Link` header with rel=\"next\", present whenever a further pet existed when the page was read. " +
    "A walk sees every pet once, even while pets are added. Unknown or repeated parameters, and any " +
    "value out of range or not in plain decimal, answer 400 invalid_query (never clamped). " +
    "A page with a next page never changes, so it carries a strong ETag, and If-None-Match with it " +
    "answers 304; the last page grows, so it carries none.",
  tags: ["pets"],
  parameters: [
    {
      name: "limit",
      in: "query",
      required: false,
      description:
        "Page size: an integer from 1 to 100. Written in plain decimal (no sign, no leading zero, no spaces; see x-request-rules integer-spelling).",
      schema: INTEGERS.limit,
    },
    {
      name: "status",
      in: "query",
      required: false,
      description: "Only pets with this status (case-sensitive). Default: no filter.",
      schema: ref("schemas", "PetStatus"),
    },
    {
      name: "after",
      in: "query",
      required: false,
      description:
        "Cursor: only pets with a greater id. An integer from 0 (the start, the default), written in plain decimal (see x-request-rules integer-spelling).",
      schema: INTEGERS.after,
    },
    ifNoneMatch,
    requestId,
  ],
  responses: {
    "200": answer(
      "A page of pets: a bare JSON array.",
      {
        Link: ref("headers", "NextLink"),
        ETag: { $ref: "#/components/headers/ETag", description: "Sent on a page that has a next page (it never changes)." },
      },
      { type: "array", items: ref("schemas", "Pet"), maxItems: 100 },
    ),
    "304": answer("If-None-Match named this page's ETag: the client's copy is current. No body.", {
      Link: ref("headers", "NextLink"),
      ETag: ref("headers", "ETag"),
    }),
    "400": errorAnswer(
      "A query parameter is unknown, repeated or invalid (`code` invalid_query); every problem is named. Or the Host header is invalid (`code` invalid_header).",
      { invalid_query: 'Cannot list pets: "limit" must be an integer from 1 to 100, got "0"', invalid_header: HOST_MESSAGE },
    ),
    ...common,
  },
};

const createPet: JsonObject = {
  operationId: "createPet",
  summary: "Add an animal",
  description:
    "Stores a new pet under the next id (positive, unique, never reused) and answers it with its " +
    "Location. A status left out stays out. A member given twice counts once, with its last value. " +
    "The 201 is sent only once the pet is durable: on disk with the JSON-file store, committed with PostgreSQL. " +
    "With an Idempotency-Key, a retry of the same create (same API key, key and pet) answers the " +
    "first 201 again, with Idempotent-Replayed: true, and stores nothing; keys are kept at least " +
    "24 hours (the memory and file stores keep at most 100,000 at once, forgetting the oldest first).",
  tags: ["pets"],
  parameters: [IDEMPOTENCY_KEY, CONTENT_ENCODING, requestId],
  requestBody: {
    required: true,
    description:
      "A new pet, as application/json (any case; a charset parameter, if any, utf-8), at most 65536 bytes, no Content-Encoding.",
    content: { "application/json": { schema: ref("schemas", "NewPet"), example: { name: "Rex", categoryId: 1, status: "available" } } },
  },
  responses: {
    "201": answer(
      "The stored pet, with the id it was given; or, for a retry with the same Idempotency-Key, the pet the first request stored.",
      {
        Location: ref("headers", "Location"),
        "Idempotent-Replayed": {
          description: "Sent, as true, when this answer repeats the one a first request with the same Idempotency-Key got.",
          schema: { type: "string", const: "true" },
        },
      },
      ref("schemas", "Pet"),
    ),
    "400": errorAnswer(
      "The body is empty, not JSON, not UTF-8, not an object, or has missing, invalid or unknown fields " +
        "(`id` included) (`code` invalid_body); every problem is named. Or the Idempotency-Key is malformed, " +
        "the Host header is invalid, or a Transfer-Encoding other than chunked is sent (`code` invalid_header).",
      {
        invalid_body: 'Cannot create pet: "name" is required; "categoryId" is required',
        invalid_header:
          'Cannot create pet: "Idempotency-Key" must be 1 to 255 visible ASCII characters other than quotes and backslashes, bare or in double quotes, such as a UUID',
      },
    ),
    "401": ref("responses", "Unauthorized"),
    "408": errorAnswer(
      "Only when the standalone server runs with DENO_SERVER set (see the project's docs/running.md): the body did not arrive within BODY_TIMEOUT (`code` request_timeout).",
      { request_timeout: "Cannot POST /v1/pets: the body did not arrive within 30 s" },
    ),
    "409": errorAnswer(
      "A request with the same Idempotency-Key is still being answered (`code` idempotency_key_in_use); retry once it is.",
      { idempotency_key_in_use: "Cannot create pet: a request with this Idempotency-Key is still being answered; retry once it is answered" },
      { "Retry-After": { required: true, description: "Seconds to wait before retrying.", schema: { type: "string", const: "1" } } },
    ),
    "413": errorAnswer("The body is larger than 65536 bytes (`code` payload_too_large); the connection is closed.", {
      payload_too_large: "Cannot create pet: body must be at most 65536 bytes",
    }),
    "415": errorAnswer(
      "The body is not application/json, has a charset other than utf-8, or has a Content-Encoding other than identity (`code` unsupported_media_type).",
      { unsupported_media_type: 'Cannot create pet: body must be application/json, got Content-Type "text/plain"' },
      {
        "Accept-Post": { description: "The accepted media type.", schema: { type: "string", const: "application/json" } },
        "Accept-Encoding": { description: "Sent when the body was compressed.", schema: { type: "string", const: "identity" } },
      },
    ),
    "422": errorAnswer(
      "The Idempotency-Key was already used, within the last 24 hours, for a create with a different pet (`code` idempotency_key_reused).",
      { idempotency_key_reused: "Cannot create pet: this Idempotency-Key already created pet 1 from a different body; use a new key for a new pet" },
    ),
    "429": common["429"],
    "500": common["500"],
    "501": errorAnswer("An Idempotency-Key was sent but the service's store keeps no keys (`code` not_implemented); never with the standalone server.", {
      not_implemented: 'Cannot create pet: this server\'s store keeps no idempotency keys; send the create without "Idempotency-Key"',
    }),
    "503": common["503"],
  },
};

const getPet: JsonObject = {
  operationId: "getPet",
  summary: "Fetch one animal (deprecated)",
  description:
    "Deprecated, removed on 5 December 2030: use GET /pets with the status filter. Every answer " +
    "of this path, errors included, carries Deprecation, Sunset and a Link to the successor. A pet " +
    "never changes: its strong ETag with If-None-Match answers 304.",
  deprecated: true,
  tags: ["pets"],
  parameters: [ifNoneMatch, requestId],
  responses: {
    "200": answer("The pet.", { ...deprecationHeaders, ETag: ref("headers", "ETag") }, ref("schemas", "Pet")),
    "304": answer("If-None-Match named the pet's ETag: the client's copy is current. No body.", {
      ...deprecationHeaders,
      ETag: ref("headers", "ETag"),
    }),
    "400": errorAnswer(
      "`petId` is not a positive integer in plain decimal (`code` invalid_path), or the Host header is invalid (`code` invalid_header).",
      {
        invalid_path: 'Cannot get pet: "petId" must be a positive integer up to 9007199254740991 without leading zeros, got "abc"',
        invalid_header: HOST_MESSAGE,
      },
      deprecationHeaders,
    ),
    "401": withHeaders(RESPONSES["Unauthorized"]!, deprecationHeaders),
    "404": errorAnswer("No pet has this id (`code` not_found).", { not_found: "Cannot get pet: no pet has id 7" }, deprecationHeaders),
    "429": common["429"],
    "500": common["500"],
    "503": common["503"],
  },
};

const listStoreOrders: JsonObject = {
  operationId: "listStoreOrders",
  summary: "List store orders (not implemented)",
  description: "Referred to by the interface but not specified: always answers 501 not_implemented (after the key check).",
  tags: ["store"],
  responses: {
    "400": ref("responses", "InvalidHost"),
    ...common,
    "501": errorAnswer("Not implemented (`code` not_implemented).", {
      not_implemented:
        "Cannot list store orders: GET /store/orders is referred to by the interface but not specified, so this service does not implement it",
    }),
  },
};

/** The HEAD operation beside a GET one: the same answers, without their bodies. */
function headOf(get: JsonObject): JsonObject {
  const responses = Object.entries(get["responses"] as JsonObject).map(([status, response]) => {
    const reference = (response as JsonObject)["$ref"];
    const resolved = typeof reference === "string" ? RESPONSES[reference.split("/").pop()!]! : (response as JsonObject);
    return [status, withoutBody(resolved)];
  });
  return {
    ...get,
    operationId: `${String(get["operationId"])}Head`,
    summary: `${String(get["summary"])}: headers only`,
    description: `HEAD: the answer ${String(get["operationId"])} would give, with its headers and Content-Length and without its body.`,
    responses: Object.fromEntries(responses),
  };
}

/** A path's operations: the ones given, HEAD beside GET, and the CORS preflight naming every method. */
function pathItem(preflightId: string, operations: { readonly get?: JsonObject; readonly [method: string]: JsonObject | undefined }): JsonObject {
  const { get, ...others } = operations;
  const methods: JsonObject = { ...(get === undefined ? {} : { get, head: headOf(get) }), ...others } as JsonObject;
  const names = Object.keys(methods).map((method) => method.toUpperCase());
  const listed = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return { ...methods, options: preflight(preflightId, listed) };
}

/** The CORS preflight of a path. */
function preflight(operationId: string, methods: string): JsonObject {
  return {
    operationId,
    summary: "CORS preflight",
    description:
      "A browser's preflight before a cross-origin request. Answered 204 without a key only when CORS is configured " +
      "(CORS_ORIGINS; off by default) and Origin is one of the allowed origins. Otherwise it is answered as any request: " +
      "401 without a key, 405 with one.",
    tags: ["cors"],
    security: [],
    parameters: [
      ref("parameters", "Origin"),
      ref("parameters", "AccessControlRequestMethod"),
      ref("parameters", "AccessControlRequestHeaders"),
      requestId,
    ],
    responses: {
      "204": answer(`Allowed: the page may send ${methods} with the listed headers.`, {
        "Access-Control-Allow-Origin": {
          required: true,
          description: "The request's Origin, or * when every origin is allowed.",
          schema: (HEADERS["Access-Control-Allow-Origin"] as JsonObject)["schema"]!,
        },
        "Access-Control-Allow-Methods": ref("headers", "Access-Control-Allow-Methods"),
        "Access-Control-Allow-Headers": ref("headers", "Access-Control-Allow-Headers"),
        "Access-Control-Max-Age": ref("headers", "Access-Control-Max-Age"),
      }),
      "400": ref("responses", "InvalidHost"),
      "401": ref("responses", "Unauthorized"),
      "405": ref("responses", "MethodNotAllowed"),
      "429": common["429"],
      "500": common["500"],
      "503": common["503"],
    },
  };
}

/** The OpenAPI 3.1 document of the Animal Store interface, version 1.0.0. */
export const OPENAPI_DOCUMENT: Json = {
  openapi: "3.1.0",
  info: {
    title: "Animal Store",
    version: "1.0.0",
    summary: "List, add and fetch animals for sale.",
    description:
      "The reference implementation of the Animal Store interface. All traffic is HTTP with JSON bodies; " +
      "every operation needs a bearer API key. Every non-2xx answer is the Error object. " +
      "Behaviour the interface leaves open is decided and written in the schemas and descriptions below; the few " +
      "rules about requests that schemas cannot state are listed, with their reasons, in x-request-rules. " +
      "Integers in paths and queries are declared as integers, as the interface declares them; the service reads " +
      "only their plain decimal spelling, which a schema cannot say (x-request-rules integer-spelling). " +
      "HEAD is answered on every GET operation, as GET without a body. A method a path does not offer answers " +
      "405; an unknown path 404 not_found. Rate limits (RATE_LIMIT) and CORS (CORS_ORIGINS) are off unless " +
      "configured; the headers they add are declared on every answer. The standalone server also answers " +
      "GET /health outside the base path, without a key (200 {\"status\":\"ok\"} while the store takes writes, else " +
      "503), and gives every answer an X-Request-Id.",
    contact: { name: "Animal Store maintainers" },
    license: { name: "MIT", identifier: "MIT" },
  },
  servers: [
    {
      url: "{base_url}",
      description: "Production",
      "x-internal": false,
      variables: { base_url: { default: "http://127.0.0.1:8080/v1", description: "Production base address; ends with /v1." } },
    },
    {
      url: "{staging_base_url}",
      description: "Staging",
      "x-internal": false,
      variables: {
        staging_base_url: { default: "http://127.0.0.1:8081/v1", description: "Staging base address; ends with /v1." },
      },
    },
  ],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: "pets", description: "Animals for sale." },
    { name: "store", description: "Store operations the interface mentions but does not specify." },
    { name: "cors", description: "Browser preflight requests, answered only when CORS is configured." },
  ],
  paths: {
    "/pets": pathItem("preflightPets", { get: listPets, post: createPet }),
    "/pets/{petId}": {
      parameters: [
        {
          name: "petId",
          in: "path",
          required: true,
          description:
            "A pet id: an integer from 1 to 9007199254740991, written in plain decimal (no sign, no leading zero; see x-request-rules integer-spelling).",
          schema: INTEGERS.petId,
        },
      ],
      ...pathItem("preflightPet", { get: getPet }),
    },
    "/store/orders": pathItem("preflightStoreOrders", { get: listStoreOrders }),
  },
  components: {
    parameters: PARAMETERS,
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description:
          "Authorization: Bearer <API key>. The scheme is case-insensitive; keys are configured on the server " +
          "(API_KEYS) and every key may do everything.",
      },
    },
    schemas: SCHEMAS,
    responses: RESPONSES,
    headers: HEADERS,
  },
  "x-request-rules": REQUEST_RULES,
};

/** The document as the JSON text served at `{basePath}/openapi.json`. */
export const OPENAPI_JSON: string = JSON.stringify(OPENAPI_DOCUMENT);
