/**
 * @module
 * Private to the OpenAPI document: the `x-request-rules` extension, the service's rules about
 * requests that OpenAPI 3.1 cannot state in schemas, each with the answer it gets and why the
 * document cannot say it. `conformance/request-check/` finds exactly these classes where a tool
 * reading the schemas alone and the service disagree; docs/conformance.md lists them.
 */
import type { Json } from "../types.ts";
import { INTEGER_SPELLING, SCHEMAS } from "./_components.ts";

type JsonObject = { readonly [key: string]: Json };

/** The default body limit (`DEFAULT_MAX_BODY_BYTES` of app.ts, which imports this module through the routes). */
const DEFAULT_MAX_BODY_BYTES = 65536;

/** An operation of the document as the rules look at it: its id, its parameters (its path's included), its body's schema, its answers' statuses. */
interface Documented {
  readonly id: string;
  readonly parameters: readonly JsonObject[];
  readonly body: JsonObject | undefined;
  readonly statuses: readonly string[];
}

/** Every operation of the document's paths, preflights aside, in the document's order. */
function documented(paths: JsonObject): Documented[] {
  return Object.values(paths as Record<string, Record<string, JsonObject>>).flatMap((item) => {
    const shared = (item["parameters"] ?? []) as unknown as JsonObject[];
    return Object.entries(item)
      .filter(([method]) => method !== "parameters" && method !== "options")
      .map(([, operation]) => ({
        id: String(operation["operationId"]),
        parameters: [...shared, ...((operation["parameters"] ?? []) as unknown as JsonObject[])],
        body: (operation["requestBody"] as { content: Record<string, { schema: JsonObject }> } | undefined)?.content["application/json"]?.schema,
        statuses: Object.keys(operation["responses"] as JsonObject),
      }));
  });
}

const isInteger = (parameter: JsonObject) => (parameter["in"] === "path" || parameter["in"] === "query") && (parameter["schema"] as JsonObject)["type"] === "integer";

/** Whether a body's schema (a component it refers to) has the member `name`. */
function bodyHas(body: JsonObject | undefined, name: string): boolean {
  const component = SCHEMAS[String(body?.["$ref"]).split("/").pop()!] as { properties?: JsonObject } | undefined;
  return component?.properties?.[name] !== undefined;
}

/** The `x-request-rules` extension for a document's paths: rules beyond the schemas, by id, each naming the operations it applies to. */
export function requestRules(paths: JsonObject): Json {
  const operations = documented(paths);
  const ids = (applies: (operation: Documented) => boolean) => operations.filter(applies).map((operation) => operation.id);
  const integers = [...new Map(operations.flatMap((operation) => operation.parameters.filter(isInteger)).map((each) => [`${each["in"]} ${each["name"]}`, { name: each["name"]!, in: each["in"]! }])).values()];
  return {
    description:
      "Rules of this service about requests that OpenAPI 3.1 cannot state in schemas, each with its answer and the " +
      "reason. A rule without `operations` applies to requests that no operation of the document takes.",
    rules: [
      {
        id: "unknown-query-parameter",
        operations: ids((operation) => operation.parameters.some((parameter) => parameter["in"] === "query")),
        rule: "A query parameter the operation does not declare is refused (names are case-sensitive: Limit is unknown).",
        answers: [{ status: 400, code: "invalid_query" }],
        why: "OpenAPI lists the parameters an operation reads; it has no way to say that no others may be sent.",
      },
      {
        id: "integer-spelling",
        operations: ids((operation) => operation.parameters.some(isInteger)),
        parameters: integers,
        rule:
          "limit, after and petId are read only in plain decimal: no sign, no leading zero, no spaces, no fraction, " +
          "exponent or hexadecimal (limit=+5, limit=05, limit=5%20, after=-0, /pets/1.0 and /pets/0x1 are refused, though " +
          "their values are in range). The text sent must match `pattern`; its value must match the parameter's schema.",
        pattern: INTEGER_SPELLING,
        answers: [{ status: 400, code: "invalid_query" }, { status: 400, code: "invalid_path" }],
        why:
          "JSON Schema constrains the value a parameter is read as, not how it was written (`pattern` applies to strings " +
          "only), and the interface declares these parameters integers, so the document keeps them integers and " +
          "generated clients send numbers.",
      },
      {
        id: "categoryId-written-form",
        operations: ids((operation) => bodyHas(operation.body, "categoryId")),
        rule: "categoryId is written as a plain integer: a fraction or an exponent is refused even when the value is whole (1.0, 1e2, -1e-400).",
        answers: [{ status: 400, code: "invalid_body" }],
        why: "JSON Schema validates the parsed value, in which 1.0, 1e0 and 1 are the same number.",
      },
      {
        id: "json-charset",
        operations: ids((operation) => operation.body !== undefined),
        rule: "application/json with a charset parameter other than utf-8 is refused.",
        answers: [{ status: 415, code: "unsupported_media_type" }],
        why: "A content key names a media type; OpenAPI cannot refuse one value of a parameter of it.",
      },
      {
        id: "body-size",
        operations: ids((operation) => operation.body !== undefined),
        rule: `A body over ${DEFAULT_MAX_BODY_BYTES} bytes is refused, whatever it holds (white space included).`,
        maxBytes: DEFAULT_MAX_BODY_BYTES,
        answers: [{ status: 413, code: "payload_too_large" }],
        why: "Schemas bound values, not the bytes of the text that carries them.",
      },
      {
        id: "petId-as-sent",
        operations: ids((operation) => operation.parameters.some((parameter) => parameter["in"] === "path" && parameter["name"] === "petId")),
        rule: "petId is read as sent, not percent-decoded: /pets/%31 is not /pets/1.",
        answers: [{ status: 400, code: "invalid_path" }],
        why: "OpenAPI hands a tool the percent-decoded value of a path parameter, so its schema never sees the escape.",
      },
      {
        id: "header-size",
        operations: ids(() => true),
        rule: "The HTTP server bounds all of a request's headers together (16 KiB with Node's defaults) and answers a bare 431 or 400 past it, before the service runs.",
        answers: [{ status: 431 }, { status: 400 }],
        why: "The bound is on all headers together; a schema bounds one value.",
      },
      {
        id: "key-scope",
        operations: ids((operation) => operation.statuses.includes("403")),
        rule: "A key of scope read may use GET and HEAD only: these operations answer it 403 insufficient_scope, before the body is read.",
        answers: [{ status: 403, code: "insufficient_scope" }],
        why: "Which key holds which scope is the server's configuration (API_KEYS_FILE), not a part of the request a schema could judge.",
      },
      {
        id: "key-before-routing",
        rule: "The API key is checked before routing: a request no operation takes answers 401 without a valid key.",
        answers: [{ status: 401, code: "unauthorized" }],
        why: "A document declares answers only for the operations it has.",
      },
      {
        id: "no-such-path",
        rule: "A path not in the document answers 404 (no redirects, a trailing slash included).",
        answers: [{ status: 404, code: "not_found" }],
        why: "A document declares answers only for the operations it has.",
      },
      {
        id: "empty-petId",
        paths: ["/pets/"],
        rule:
          "/pets/ (a trailing slash, an empty petId) is not getPet: no operation has that path, so it answers 404 not_found as any " +
          "unknown path does, without getPet's Deprecation, Sunset and Link (which belong to getPet's answers), never 400 invalid_path.",
        answers: [{ status: 404, code: "not_found" }],
        why:
          "Path templating lets {petId} match an empty segment, so tools read /pets/ as getPet with petId \"\"; a document cannot " +
          "say that a path parameter is never empty, only constrain the value it is read as.",
      },
      {
        id: "method-not-offered",
        rule: "A method a path does not offer answers 405 with Allow (see the MethodNotAllowed response).",
        answers: [{ status: 405, code: "method_not_allowed" }],
        why: "A document declares answers only for the operations it has.",
      },
    ],
  };
}
