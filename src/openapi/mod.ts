/**
 * @module
 * The OpenAPI 3.1 document of the interface: the single source for generated clients, gateways and
 * portals, served at `{basePath}/openapi.json`. Its paths are written from the operations, each
 * declared once in `operations/` with its parameters, body and answers; what they share is in
 * `_components.ts`. Every decision the interface leaves open (see docs/decisions.md) is written
 * here too, as schemas wherever JSON Schema can say it; the few rules it cannot are in the
 * `x-request-rules` extension (`_rules.ts`). `test/openapi.test.ts` checks the document against the
 * code, and `conformance/` holds the service to it.
 */
import type { Operation, Parameter } from "../operation.ts";
import type { Json } from "../types.ts";
import { OPERATIONS } from "../operations/mod.ts";
import { answer, COMMON_ANSWERS, ref, REQUEST_ID, RESPONSES, withoutBody } from "./answers.ts";
import { CONTENT_ENCODING, HEADERS, PARAMETERS, SCHEMAS } from "./_components.ts";
import { requestRules } from "./_rules.ts";

type JsonObject = { readonly [key: string]: Json };

/** The document's paths: each path's operations (HEAD beside GET), its path parameters, and its CORS preflight. */
function pathsOf(operations: readonly Operation[]): JsonObject {
  const paths = [...new Set(operations.map((operation) => operation.path))];
  return Object.fromEntries(paths.map((path) => [path, pathItem(operations.filter((operation) => operation.path === path))]));
}

/**
 * One path's operations: its path parameters once for all of them (every operation of a path reads
 * the same ones), GET and HEAD first, the others as declared, then the preflight naming them all.
 */
function pathItem(declared: readonly Operation[]): JsonObject {
  const get = declared.find((operation) => operation.method === "GET");
  const ordered = get === undefined ? declared : [get, ...declared.filter((operation) => operation !== get)];
  const methods: Record<string, Json> = {};
  for (const operation of ordered) {
    methods[operation.method.toLowerCase()] = operationObject(operation);
    if (operation === get) methods["head"] = headOf(methods["get"] as JsonObject);
  }
  const names = Object.keys(methods).map((method) => method.toUpperCase());
  const listed = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  // The preflight is named after the path's first operation: listPets's is preflightPets.
  const preflightId = `preflight${declared[0]!.operationId.replace(/^[a-z]+/, "")}`;
  const pathParameters = parametersOf(declared[0]!).filter((parameter) => parameter.in === "path");
  for (const operation of declared) {
    const own = parametersOf(operation).filter((parameter) => parameter.in === "path");
    if (own.length !== pathParameters.length || own.some((parameter, i) => parameter !== pathParameters[i])) {
      throw new TypeError(`Cannot document ${operation.operationId}: every operation of ${operation.path} must read the same path parameters`);
    }
  }
  return {
    ...(pathParameters.length === 0 ? {} : { parameters: pathParameters.map(parameterObject) }),
    ...methods,
    options: preflight(preflightId, listed),
  };
}

/** The operation object of a declared operation: its parameters and body as its schema declares them, its answers. */
function operationObject(operation: Operation): JsonObject {
  const own = parametersOf(operation).filter((parameter) => parameter.in !== "path").map(parameterObject);
  // A JSON body is read by read-body.ts, which refuses a Content-Encoding: the document says so beside it.
  const parameters = [...own, ...(operation.body === undefined ? [] : [CONTENT_ENCODING]), ...(operation.alsoDocumented ?? [])];
  const { body } = operation;
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    ...(operation.deprecation === undefined ? {} : { deprecated: true }),
    tags: [...operation.tags],
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(body === undefined ? {} : {
      requestBody: { required: true, description: body.description, content: { "application/json": { schema: body.schema, example: body.example } } },
    }),
    responses: operation.answers,
  };
}

function parametersOf(operation: Operation): Parameter<unknown>[] {
  return Object.values(operation.parameters);
}

/** A parameter as the document states it: its reader stays with the service. */
function parameterObject(parameter: Parameter<unknown>): JsonObject {
  return { name: parameter.name, in: parameter.in, required: parameter.required, description: parameter.description, schema: parameter.schema };
}

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
      REQUEST_ID,
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
      "429": COMMON_ANSWERS["429"],
      "500": COMMON_ANSWERS["500"],
      "503": COMMON_ANSWERS["503"],
    },
  };
}

const PATHS = pathsOf(OPERATIONS);

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
  paths: PATHS,
  components: {
    parameters: PARAMETERS,
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description:
          "Authorization: Bearer <API key>. The scheme is case-insensitive; keys are configured on the server " +
          "(API_KEYS, or API_KEYS_FILE with names, scopes and expiries). A key of scope read may use GET and HEAD only: " +
          "any other operation answers 403 insufficient_scope; a key of scope write (the default) may do everything. " +
          "An expired key answers 401 as an unknown one does, its message saying it expired.",
      },
    },
    schemas: SCHEMAS,
    responses: RESPONSES,
    headers: HEADERS,
  },
  "x-request-rules": requestRules(PATHS),
};

/** The document as the JSON text served at `{basePath}/openapi.json`. */
export const OPENAPI_JSON: string = JSON.stringify(OPENAPI_DOCUMENT);
