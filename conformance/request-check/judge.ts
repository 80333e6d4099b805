/**
 * @module
 * Judges a request by the OpenAPI document alone, as a tool that knows nothing but the document
 * would: finds its operation, checks the security requirement, reads each declared parameter as its
 * declared type and validates it, and validates the body against the media type's schema. The
 * document's `x-request-rules` extension is not read here: the check compares this verdict with
 * the service and then asks whether the extension names each disagreement.
 *
 * How values are read (each choice is the common reading of OpenAPI 3.1, stated so it can be argued):
 * - Query values are decoded as `application/x-www-form-urlencoded` (`URLSearchParams`). A name
 *   given once is one value; a name given more than once is an array, since `style: form,
 *   explode: true` (the default for query) serializes an array as repeated names.
 * - Path values are percent-decoded; header values are read as the Fetch API gives them.
 * - Parameter values are coerced to their declared type as Ajv's `coerceTypes` does (the common
 *   reading: `"+5"` and `" 5"` read as the integer 5); bodies are never coerced.
 * - A body matches a content key by its media type (type and subtype, any case); the key's own
 *   parameters must be present, others are ignored. JSON bodies are read with `JSON.parse`, which is
 *   what JSON Schema validates: the parsed value, never the written number.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/** A JSON value as the document holds it. */
type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };
type JsonObject = { readonly [key: string]: Json };

/** What the document says of a request. */
export interface Verdict {
  /** Whether the document allows the request (a well-formed request a client may send). */
  readonly allowed: boolean;
  /** The operation it reaches, when one does. */
  readonly operation?: { readonly id: string; readonly responses: readonly string[] };
  /** Why it is refused, when it is. */
  readonly reason: string;
}

/** A request as the check sends it: the body as bytes or text. */
export interface RequestShape {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body?: string | Uint8Array<ArrayBuffer>;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A judge for one document; `credentials` are the bearer tokens a client knows to be valid. */
export function createJudge(document: JsonObject, baseUrl: string, credentials: readonly string[]): (request: RequestShape) => Verdict {
  const coercing = addFormats(new Ajv2020({ strict: false, coerceTypes: true, allErrors: true }));
  const exact = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const compiled = new Map<string, ValidateFunction>();
  const compile = (ajv: Ajv2020, schema: Json, key: string): ValidateFunction => {
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile(inline(schema, document) as object);
      compiled.set(key, validate);
    }
    return validate;
  };
  const paths = document["paths"] as JsonObject;
  const base = new URL(baseUrl);

  return (request) => {
    const url = new URL(request.url);
    if (url.origin !== base.origin || !url.pathname.startsWith(`${base.pathname}/`)) return refuse("outside the server URL");
    const found = findPath(paths, url.pathname.slice(base.pathname.length));
    if (found === undefined) return refuse("no such path");
    const item = found.item;
    const operation = item[request.method.toLowerCase()] as JsonObject | undefined;
    if (operation === undefined || !METHODS.includes(request.method.toLowerCase())) return refuse("the path offers no such method");
    const id = String(operation["operationId"]);
    const responses = Object.keys(operation["responses"] as JsonObject);
    const judged = (reason: string): Verdict => ({ allowed: reason === "", operation: { id, responses }, reason });

    const security = (operation["security"] ?? document["security"] ?? []) as readonly JsonObject[];
    if (!securityMet(security, document, request.headers, credentials)) return judged("security requirement not met");

    const parameters = [...((item["parameters"] ?? []) as Json[]), ...((operation["parameters"] ?? []) as Json[])]
      .map((parameter) => resolve(parameter, document) as JsonObject);
    for (const parameter of parameters) {
      const problem = checkParameter(parameter, request, url, found.params, (schema, key) => compile(coercing, schema, `${id}:${key}`));
      if (problem !== "") return judged(problem);
    }
    const requestBody = operation["requestBody"] === undefined ? undefined : (resolve(operation["requestBody"], document) as JsonObject);
    if (requestBody !== undefined) {
      return judged(checkBody(requestBody, request, (schema, key) => compile(exact, schema, `${id}:${key}`)));
    }
    return judged("");
  };
}

function refuse(reason: string): Verdict {
  return { allowed: false, reason };
}

/** The path item a request path matches (concrete paths before templated ones) and its decoded parameters. */
function findPath(paths: JsonObject, path: string): { item: JsonObject; params: Record<string, string> } | undefined {
  const segments = path.split("/");
  const templates = Object.keys(paths).sort((a, b) => Number(a.includes("{")) - Number(b.includes("{")));
  for (const template of templates) {
    const parts = template.split("/");
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matched = parts.every((part, i) => {
      const segment = segments[i]!;
      if (!part.startsWith("{")) return part === segment;
      if (segment === "") return false;
      params[part.slice(1, -1)] = safeDecode(segment);
      return true;
    });
    if (matched) return { item: paths[template] as JsonObject, params };
  }
  return undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Whether one of the security requirements is met: bearer schemes by a known token, `{}` by anything. */
function securityMet(requirements: readonly JsonObject[], document: JsonObject, headers: Headers, credentials: readonly string[]): boolean {
  if (requirements.length === 0) return true;
  const schemes = (document["components"] as JsonObject)["securitySchemes"] as JsonObject;
  return requirements.some((requirement) =>
    Object.keys(requirement).every((name) => {
      const scheme = schemes[name] as JsonObject;
      if (scheme["type"] !== "http" || String(scheme["scheme"]).toLowerCase() !== "bearer") return false;
      const match = /^bearer +(\S+)$/i.exec(headers.get("authorization") ?? "");
      return match !== null && credentials.includes(match[1]!);
    }));
}

/** The problem with one declared parameter in a request, or "". */
function checkParameter(
  parameter: JsonObject,
  request: RequestShape,
  url: URL,
  pathParams: Record<string, string>,
  compile: (schema: Json, key: string) => ValidateFunction,
): string {
  const name = String(parameter["name"]);
  const where = String(parameter["in"]);
  let value: Json | undefined;
  if (where === "query") {
    const values = new URLSearchParams(url.search).getAll(name);
    value = values.length === 0 ? undefined : values.length === 1 ? values[0]! : values;
  } else if (where === "path") {
    value = pathParams[name];
  } else if (where === "header") {
    value = request.headers.get(name) ?? undefined;
  }
  if (value === undefined) return parameter["required"] === true ? `${where} parameter "${name}" is required` : "";
  if (where === "query" && value === "" && parameter["allowEmptyValue"] !== true) return `query parameter "${name}" is empty`;
  // Ajv coerces in place, so the value is validated as a member of an object it can write to.
  const valid = compile({ type: "object", properties: { value: parameter["schema"] ?? {} } }, `${where}:${name}`)({ value });
  return valid ? "" : `${where} parameter "${name}" breaks its schema`;
}

/** The problem with a request's body against a request body object, or "". */
function checkBody(requestBody: JsonObject, request: RequestShape, compile: (schema: Json, key: string) => ValidateFunction): string {
  const bytes = typeof request.body === "string" ? new TextEncoder().encode(request.body) : request.body;
  if (bytes === undefined || bytes.byteLength === 0) return requestBody["required"] === true ? "the body is required" : "";
  const contentType = request.headers.get("content-type");
  if (contentType === null) return "a body without a media type";
  const content = requestBody["content"] as JsonObject;
  const key = Object.keys(content).find((range) => mediaTypeMatches(range, contentType));
  if (key === undefined) return `media type ${contentType} is not declared`;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "the body is not UTF-8";
  }
  if (!/json/i.test(key)) return "";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "the body is not JSON";
  }
  const schema = (content[key] as JsonObject)["schema"] ?? {};
  return compile(schema, `body:${key}`)(value) ? "" : "the body breaks its schema";
}

/** Whether a Content-Type value falls under a content key (`type/subtype`, `type/*`, `*\/*`, with optional parameters). */
function mediaTypeMatches(range: string, contentType: string): boolean {
  const [wanted = "", ...wantedParameters] = range.split(";").map((part) => part.trim().toLowerCase());
  const [given = "", ...givenParameters] = contentType.split(";").map((part) => part.trim().toLowerCase());
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(given)) return false;
  const [type, subtype] = given.split("/");
  const [wantedType, wantedSubtype] = wanted.split("/");
  const typeMatches = wantedType === "*" || (wantedType === type && (wantedSubtype === "*" || wantedSubtype === subtype));
  return typeMatches && wantedParameters.every((parameter) => givenParameters.includes(parameter));
}

/** A `$ref` followed (local references only). */
function resolve(value: Json, document: JsonObject): Json {
  let current = value;
  for (let hops = 0; hops < 20 && isObject(current) && typeof current["$ref"] === "string"; hops++) {
    current = pointer(document, current["$ref"] as string);
  }
  return current;
}

/** A schema with every local `$ref` replaced by its target, so Ajv needs no document to resolve it. */
function inline(schema: Json, document: JsonObject, depth = 0): Json {
  if (depth > 50) throw new Error("Cannot inline schema: references nest too deep");
  if (Array.isArray(schema)) return schema.map((each) => inline(each, document, depth + 1));
  if (!isObject(schema)) return schema;
  const reference = schema["$ref"];
  const { $ref: _ignored, ...rest } = schema;
  const base = typeof reference === "string" ? inline(pointer(document, reference), document, depth + 1) : {};
  const own = Object.fromEntries(Object.entries(rest).map(([key, each]) => [key, inline(each, document, depth + 1)]));
  // A $ref beside other keywords applies both (JSON Schema 2020-12): keep the two as allOf.
  return typeof reference !== "string" ? own : Object.keys(own).length === 0 ? base : { allOf: [base, own] };
}

function pointer(document: JsonObject, reference: string): Json {
  if (!reference.startsWith("#/")) throw new Error(`Cannot resolve ${reference}: only local references are supported`);
  let current: Json = document;
  for (const raw of reference.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(current) && !Array.isArray(current)) throw new Error(`Cannot resolve ${reference}`);
    current = (current as Record<string, Json>)[key]!;
    if (current === undefined) throw new Error(`Cannot resolve ${reference}`);
  }
  return current;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
