/**
 * @module
 * The OpenAPI 3.1 document of the interface: the single source for generated clients, gateways and
 * portals, served at `{basePath}/openapi.json`. Every decision the interface leaves open (see the
 * README's table) is written here too; `test/openapi.test.ts` checks the document against the code.
 */

/** A JSON value. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

const json = "application/json";
const errorContent = { [json]: { schema: { $ref: "#/components/schemas/Error" } } };

/** A response carrying the error object. */
function errorResponse(description: string, headers?: Record<string, Json>): Json {
  return headers === undefined ? { description, content: errorContent } : { description, headers, content: errorContent };
}

const unauthorized = { $ref: "#/components/responses/Unauthorized" };
const internalError = { $ref: "#/components/responses/InternalError" };
const deprecationHeaders = {
  Deprecation: { $ref: "#/components/headers/Deprecation" },
  Sunset: { $ref: "#/components/headers/Sunset" },
  Link: { $ref: "#/components/headers/SuccessorLink" },
};
const requestId = { $ref: "#/components/parameters/RequestId" };
const ifNoneMatch = { $ref: "#/components/parameters/IfNoneMatch" };
const requestIdHeader = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };

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
      "Behaviour the interface leaves open is decided and written in the descriptions below. " +
      "HEAD is answered on every GET operation, as GET without a body. A method a path does not " +
      "offer answers 405 (see the MethodNotAllowed response); an unknown path 404 not_found. " +
      "The standalone server also answers GET /health outside the base path, without a key (200 " +
      "{\"status\":\"ok\"} while the store takes writes, else 503), and gives every answer an X-Request-Id.",
    license: { name: "MIT", identifier: "MIT" },
  },
  servers: [
    {
      url: "{base_url}",
      description: "Production",
      variables: { base_url: { default: "http://127.0.0.1:8080/v1", description: "Production base address; ends with /v1." } },
    },
    {
      url: "{staging_base_url}",
      description: "Staging",
      variables: {
        staging_base_url: { default: "http://127.0.0.1:8081/v1", description: "Staging base address; ends with /v1." },
      },
    },
  ],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: "pets", description: "Animals for sale." },
    { name: "store", description: "Store operations the interface mentions but does not specify." },
  ],
  paths: {
    "/pets": {
      get: {
        operationId: "listPets",
        summary: "List animals",
        description:
          "Pets in ascending id order. Pages: pass the id of the last pet seen as `after`, or follow the " +
          "`Link` header with rel=\"next\", present whenever a further pet existed when the page was read. " +
          "A walk sees every pet once, even while pets are added. Unknown or repeated parameters, and any " +
          "value out of range, answer 400 invalid_query (never clamped). No rate limit: no 429. " +
          "A page with a next page never changes, so it carries a strong ETag, and If-None-Match with it " +
          "answers 304; the last page grows, so it carries none.",
        tags: ["pets"],
        parameters: [
          {
            name: "limit",
            in: "query",
            required: false,
            description: "Page size: a plain decimal integer (no sign, no leading zero).",
            schema: { type: "integer", minimum: 1, maximum: 100, default: 20 },
          },
          {
            name: "status",
            in: "query",
            required: false,
            description: "Only pets with this status (case-sensitive). Default: no filter.",
            schema: { $ref: "#/components/schemas/PetStatus" },
          },
          {
            name: "after",
            in: "query",
            required: false,
            description: "Cursor: only pets with a greater id. Default 0, the start.",
            schema: { type: "integer", format: "int64", minimum: 0, maximum: 9007199254740991, default: 0 },
          },
          ifNoneMatch,
          requestId,
        ],
        responses: {
          "200": {
            description: "A page of pets: a bare JSON array.",
            headers: {
              Link: { $ref: "#/components/headers/NextLink" },
              ETag: { $ref: "#/components/headers/ETag", description: "Sent on a page that has a next page (it never changes)." },
              ...requestIdHeader,
            },
            content: { [json]: { schema: { type: "array", items: { $ref: "#/components/schemas/Pet" }, maxItems: 100 } } },
          },
          "304": {
            description: "If-None-Match named this page's ETag: the client's copy is current. No body.",
            headers: { Link: { $ref: "#/components/headers/NextLink" }, ETag: { $ref: "#/components/headers/ETag" }, ...requestIdHeader },
          },
          "400": errorResponse("A query parameter is unknown, repeated or invalid (`code` invalid_query); every problem is named."),
          "401": unauthorized,
          "500": internalError,
          "503": { $ref: "#/components/responses/ServiceUnavailable" },
        },
      },
      post: {
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
        parameters: [
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description:
              "Makes a retry safe: 1 to 255 visible ASCII characters other than quotes and backslashes " +
              "(a UUID, say), bare or as a structured-field string in double quotes. Scoped to the API key.",
            schema: { type: "string", minLength: 1, maxLength: 257, pattern: '^([!#-\\[\\]-~]{1,255}|"[!#-\\[\\]-~]{1,255}")$' },
          },
          requestId,
        ],
        requestBody: {
          required: true,
          description: "A new pet, as application/json (optionally charset=utf-8), at most 65536 bytes, no Content-Encoding.",
          content: { [json]: { schema: { $ref: "#/components/schemas/NewPet" } } },
        },
        responses: {
          "201": {
            description: "The stored pet, with the id it was given; or, for a retry with the same Idempotency-Key, the pet the first request stored.",
            headers: {
              Location: { $ref: "#/components/headers/Location" },
              "Idempotent-Replayed": {
                description: "Sent, as true, when this answer repeats the one a first request with the same Idempotency-Key got.",
                schema: { type: "string", const: "true" },
              },
              ...requestIdHeader,
            },
            content: { [json]: { schema: { $ref: "#/components/schemas/Pet" } } },
          },
          "400": errorResponse(
            "The body is empty, not JSON, not UTF-8, not an object, or has missing, invalid or unknown fields " +
              "(`id` included) (`code` invalid_body); every problem is named. Or the Idempotency-Key is malformed " +
              "(`code` invalid_header).",
          ),
          "401": unauthorized,
          "409": errorResponse(
            "A request with the same Idempotency-Key is still being answered (`code` idempotency_key_in_use); retry once it is.",
            { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "string", const: "1" } } },
          ),
          "422": errorResponse(
            "The Idempotency-Key was already used, within the last 24 hours, for a create with a different pet (`code` idempotency_key_reused).",
          ),
          "413": errorResponse("The body is larger than 65536 bytes (`code` payload_too_large)."),
          "415": errorResponse(
            "The body is not application/json, or has a Content-Encoding other than identity (`code` unsupported_media_type).",
            {
              "Accept-Post": { description: "The accepted media type.", schema: { type: "string", const: "application/json" } },
              "Accept-Encoding": { description: "Sent when the body was compressed.", schema: { type: "string", const: "identity" } },
            },
          ),
          "500": internalError,
          "501": errorResponse("An Idempotency-Key was sent but the service's store keeps no keys (`code` not_implemented); never with the standalone server."),
          "503": { $ref: "#/components/responses/ServiceUnavailable" },
        },
      },
    },
    "/pets/{petId}": {
      get: {
        operationId: "getPet",
        summary: "Fetch one animal (deprecated)",
        description:
          "Deprecated, removed on 5 December 2030: use GET /pets with the status filter. Every answer " +
          "of this path, errors included, carries Deprecation, Sunset and a Link to the successor. A pet " +
          "never changes: its strong ETag with If-None-Match answers 304.",
        deprecated: true,
        tags: ["pets"],
        parameters: [
          {
            name: "petId",
            in: "path",
            required: true,
            description: "A pet id: a plain decimal integer from 1 to 9007199254740991, no leading zeros.",
            schema: { type: "integer", format: "int64", minimum: 1, maximum: 9007199254740991 },
          },
          ifNoneMatch,
          requestId,
        ],
        responses: {
          "200": {
            description: "The pet.",
            headers: { ...deprecationHeaders, ETag: { $ref: "#/components/headers/ETag" }, ...requestIdHeader },
            content: { [json]: { schema: { $ref: "#/components/schemas/Pet" } } },
          },
          "304": {
            description: "If-None-Match named the pet's ETag: the client's copy is current. No body.",
            headers: { ...deprecationHeaders, ETag: { $ref: "#/components/headers/ETag" }, ...requestIdHeader },
          },
          "400": errorResponse("`petId` is not a positive integer (`code` invalid_path).", deprecationHeaders),
          "401": unauthorized,
          "404": errorResponse("No pet has this id (`code` not_found).", deprecationHeaders),
          "500": internalError,
          "503": { $ref: "#/components/responses/ServiceUnavailable" },
        },
      },
    },
    "/store/orders": {
      get: {
        operationId: "listStoreOrders",
        summary: "List store orders (not implemented)",
        description: "Referred to by the interface but not specified: always answers 501 not_implemented.",
        tags: ["store"],
        responses: {
          "401": unauthorized,
          "501": errorResponse("Not implemented (`code` not_implemented)."),
        },
      },
    },
  },
  components: {
    parameters: {
      RequestId: {
        name: "X-Request-Id",
        in: "header",
        required: false,
        description:
          "The standalone server logs each request under an id and answers it as X-Request-Id; a client's own id " +
          "(1 to 128 letters, digits and ._:-) is kept, anything else is replaced by a new one.",
        schema: { type: "string", minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9._:-]+$" },
      },
      IfNoneMatch: {
        name: "If-None-Match",
        in: "header",
        required: false,
        description: "Entity tags the client holds, or *: when one is the answer's ETag (weak comparison), the answer is 304.",
        schema: { type: "string" },
      },
    },
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description:
          "Authorization: Bearer <API key>. The scheme is case-insensitive; keys are configured on the server " +
          "(API_KEYS) and every key may do everything.",
      },
    },
    schemas: {
      PetStatus: {
        type: "string",
        enum: ["available", "pending", "sold"],
        description: "Availability of a pet.",
      },
      PetName: {
        type: "string",
        minLength: 1,
        maxLength: 200,
        pattern: "^[^\\u0000-\\u001F\\u007F-\\u009F]*[^\\s\\u0000-\\u001F\\u007F-\\u009F][^\\u0000-\\u001F\\u007F-\\u009F]*$",
        description:
          "Not only whitespace; no control characters (U+0000 to U+001F, U+007F to U+009F: 400 on create); at most 200 characters (Unicode code points); well-formed Unicode; stored as sent.",
      },
      CategoryId: {
        type: "integer",
        format: "int64",
        minimum: -9007199254740991,
        maximum: 9007199254740991,
        description:
          "Written as a plain integer (no fraction or exponent). Values JavaScript cannot hold exactly are refused, never rounded.",
      },
      NewPet: {
        type: "object",
        description: "A pet as a client sends it. Any other member (id included) is refused.",
        required: ["name", "categoryId"],
        additionalProperties: false,
        properties: {
          name: { $ref: "#/components/schemas/PetName" },
          categoryId: { $ref: "#/components/schemas/CategoryId" },
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
            maximum: 9007199254740991,
            description: "Assigned by the service; ascending in creation order.",
          },
          name: { $ref: "#/components/schemas/PetName" },
          categoryId: { $ref: "#/components/schemas/CategoryId" },
          status: { $ref: "#/components/schemas/PetStatus" },
        },
      },
      Error: {
        type: "object",
        required: ["code", "message", "status"],
        additionalProperties: false,
        properties: {
          code: {
            type: "string",
            enum: [
              "invalid_body",
              "invalid_query",
              "invalid_path",
              "invalid_header",
              "invalid_request",
              "unauthorized",
              "not_found",
              "method_not_allowed",
              "request_timeout",
              "idempotency_key_in_use",
              "payload_too_large",
              "headers_too_large",
              "unsupported_media_type",
              "idempotency_key_reused",
              "internal_error",
              "not_implemented",
              "service_unavailable",
            ],
          },
          message: { type: "string", description: "For people: names every problem found." },
          status: { type: "integer", minimum: 400, maximum: 599, description: "Repeats the HTTP status." },
        },
      },
    },
    responses: {
      Unauthorized: errorResponse("Missing or invalid API key (`code` unauthorized). Checked before anything else.", {
        "WWW-Authenticate": { $ref: "#/components/headers/WWW-Authenticate" },
      }),
      InternalError: errorResponse("Unexpected error (`code` internal_error); logged, never detailed in the body."),
      ServiceUnavailable: errorResponse(
        "The store cannot serve the request now (`code` service_unavailable): its data file could not be written " +
          "or was taken away (the message says what to do), its database is unavailable (retry; it recovers by " +
          "itself; a create whose outcome is unknown says so), or the server is shutting down.",
      ),
      MethodNotAllowed: errorResponse("The path does not offer this method (`code` method_not_allowed).", {
        Allow: { description: "The methods the path offers.", schema: { type: "string", pattern: "^[A-Z]+(, [A-Z]+)*$" } },
      }),
    },
    headers: {
      ETag: {
        description: "Strong entity tag of the body (a hash of its bytes); send it back in If-None-Match.",
        schema: { type: "string", pattern: '^"[0-9a-f]{16}"$' },
      },
      RequestId: {
        description: "The id the standalone server logged this request under (absent when its access log is off).",
        schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
      },
      "WWW-Authenticate": {
        required: true,
        description: 'Bearer challenge (RFC 6750); error="invalid_token" when a bearer token was sent.',
        schema: { type: "string", pattern: '^Bearer realm="[^"]*"(, error="invalid_token")?$' },
      },
      NextLink: {
        description: "RFC 8288 link to the next page, present when a further pet exists.",
        schema: { type: "string", pattern: '^<[^>]+>; rel="next"$' },
      },
      Location: {
        required: true,
        description: "Absolute URL of the created pet.",
        schema: { type: "string", format: "uri", pattern: "/pets/[1-9][0-9]*$" },
      },
      Deprecation: {
        required: true,
        description: "RFC 9745: deprecated since 2026-11-22 (the interface gives no date).",
        schema: { type: "string", pattern: "^@[0-9]+$" },
      },
      Sunset: {
        required: true,
        description: "RFC 8594: removal date.",
        schema: { type: "string", const: "Thu, 05 Dec 2030 00:00:00 GMT" },
      },
      SuccessorLink: {
        required: true,
        description: "Link to the replacement operation, GET /pets.",
        schema: { type: "string", pattern: '^<[^>]+/pets>; rel="successor-version"$' },
      },
    },
  },
};

/** The document as the JSON text served at `{basePath}/openapi.json`. */
export const OPENAPI_JSON: string = JSON.stringify(OPENAPI_DOCUMENT);
