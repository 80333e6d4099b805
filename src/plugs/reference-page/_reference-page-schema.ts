/**
 * @module
 * Private to the reference page: reading an OpenAPI document as plain JSON. Following `$ref`s,
 * saying in a few words what a schema allows, and making an example value a schema accepts.
 * Nothing here knows this API: the page renders whatever the document holds.
 */
import type { Json } from "../../types.ts";

/** A JSON object. */
export type JsonObject = { readonly [key: string]: Json };

const EMPTY: JsonObject = Object.freeze({});
/** How many `$ref`s, or levels of nested schemas, are followed before giving up (a cycle, say). */
const MAX_DEPTH = 8;

/** Whether a JSON value is an object (not an array or null). */
export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object at `value`, or an empty one when it is anything else. */
export function objectAt(value: Json | undefined): JsonObject {
  return isObject(value) ? value : EMPTY;
}

/** The string at `value`, or `""`. */
export function textAt(value: Json | undefined): string {
  return typeof value === "string" ? value : "";
}

/** The array at `value`, or an empty one. */
export function listAt(value: Json | undefined): readonly Json[] {
  return Array.isArray(value) ? value : [];
}

/** The last name of a local `$ref` (`#/components/schemas/Pet` gives `Pet`), or `undefined`. */
export function refName(value: Json | undefined): string | undefined {
  const ref = isObject(value) ? value.$ref : undefined;
  return typeof ref === "string" && ref.startsWith("#/") ? unescapePointer(ref.slice(ref.lastIndexOf("/") + 1)) : undefined;
}

/**
 * The object `value` stands for: a local `$ref` followed (its sibling members, such as a
 * `description`, win over the target's, as OpenAPI 3.1 says), anything else as it is.
 */
export function resolve(document: Json, value: Json | undefined): JsonObject {
  let current = objectAt(value);
  for (let hops = 0; hops < MAX_DEPTH && typeof current.$ref === "string"; hops++) {
    const { $ref, ...siblings } = current;
    const target = typeof $ref === "string" && $ref.startsWith("#/") ? pointer(document, $ref.slice(2)) : undefined;
    current = { ...objectAt(target), ...siblings };
  }
  return current;
}

function pointer(document: Json, path: string): Json | undefined {
  let value: Json | undefined = document;
  for (const part of path.split("/")) value = isObject(value) ? value[unescapePointer(part)] : undefined;
  return value;
}

function unescapePointer(part: string): string {
  return part.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Escapes text for HTML content and quoted attribute values. NUL and U+0001, which the page uses as marks, are dropped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'\0\u0001]/g, (character) => HTML_ESCAPES[character] ?? "");
}

const HTML_ESCAPES: Readonly<Record<string, string>> = Object.freeze({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" });

/** A value as JSON text in a `<code>` element. */
export function codeOf(value: Json | undefined): string {
  return `<code>${escapeHtml(typeof value === "string" ? value : JSON.stringify(value) ?? "")}</code>`;
}

/** What a schema allows, in a few words, as HTML: `integer · int64 · 1 to 100 · default 20`; named schemas link to their section. */
export function schemaSummary(document: Json, value: Json | undefined, depth = 0): string {
  const name = refName(value);
  if (name !== undefined && textAt(objectAt(value).$ref).startsWith("#/components/schemas/")) {
    return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  const schema = resolve(document, value);
  if (depth > MAX_DEPTH) return "…";
  const parts: string[] = [];
  const type = Array.isArray(schema.type) ? schema.type.join(" or ") : textAt(schema.type);
  if (type === "array") parts.push(`array of ${schemaSummary(document, schema.items, depth + 1)}`);
  else if (type !== "") parts.push(escapeHtml(type));
  for (const keyword of ["oneOf", "anyOf"]) {
    const choices = listAt(schema[keyword]);
    if (choices.length > 0) parts.push(`${keyword === "oneOf" ? "one of" : "any of"} ${choices.map((choice) => schemaSummary(document, choice, depth + 1)).join(" | ")}`);
  }
  const all = listAt(schema.allOf);
  if (all.length > 0) parts.push(all.map((part) => schemaSummary(document, part, depth + 1)).join(" · "));
  // A schema that only narrows properties (as an error answer pins `code` and `status`) says how.
  if (type === "" && schema.properties !== undefined) {
    parts.push(...propertiesOf(document, schema).map(({ name, schema: property }) => `${codeOf(name)} ${schemaSummary(document, property, depth + 1)}`));
  }
  if (typeof schema.format === "string") parts.push(escapeHtml(schema.format));
  if (schema.const !== undefined) parts.push(`always ${codeOf(schema.const)}`);
  const choices = listAt(schema.enum);
  if (choices.length > 0) parts.push(`one of ${choices.map(codeOf).join(", ")}`);
  parts.push(...bounds(schema));
  if (typeof schema.pattern === "string") parts.push(`matching ${codeOf(schema.pattern)}`);
  if (schema.default !== undefined) parts.push(`default ${codeOf(schema.default)}`);
  return parts.join(" · ") || "any JSON value";
}

/** The ranges a schema sets: values, lengths, item counts. */
function bounds(schema: JsonObject): string[] {
  const range = (low: Json | undefined, high: Json | undefined, unit: string) => {
    const from = typeof low === "number" ? low.toLocaleString("en-US") : undefined;
    const to = typeof high === "number" ? high.toLocaleString("en-US") : undefined;
    if (from !== undefined && to !== undefined) return [from === to ? `exactly ${from}${unit}` : `${from} to ${to}${unit}`];
    if (from !== undefined) return [`at least ${from}${unit}`];
    return to === undefined ? [] : [`at most ${to}${unit}`];
  };
  return [
    ...range(schema.minimum, schema.maximum, ""),
    ...range(schema.minLength, schema.maxLength, " characters"),
    ...range(schema.minItems, schema.maxItems, " items"),
  ];
}

/** The properties of an object schema, each with whether it is required. */
export function propertiesOf(document: Json, value: Json | undefined): { readonly name: string; readonly schema: Json; readonly required: boolean }[] {
  const schema = resolve(document, value);
  const required = new Set(listAt(schema.required).filter((name) => typeof name === "string"));
  return Object.entries(objectAt(schema.properties)).map(([name, property]) => ({ name, schema: property, required: required.has(name) }));
}

/** A value the schema accepts, for examples and the "try it" form: the document's own example when it gives one. */
export function exampleOf(document: Json, value: Json | undefined, depth = 0): Json {
  const schema = resolve(document, value);
  const examples = listAt(schema.examples);
  if (examples.length > 0) return examples[0]!;
  for (const keyword of ["example", "const", "default"]) if (schema[keyword] !== undefined) return schema[keyword]!;
  const choices = listAt(schema.enum);
  if (choices.length > 0) return choices[0]!;
  if (depth > MAX_DEPTH) return null;
  const firstChoice = listAt(schema.oneOf)[0] ?? listAt(schema.anyOf)[0];
  if (firstChoice !== undefined) return exampleOf(document, firstChoice, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "object" || schema.properties !== undefined) {
    return Object.fromEntries(propertiesOf(document, schema).map(({ name, schema: property }) => [name, exampleOf(document, property, depth + 1)]));
  }
  if (type === "array") return [exampleOf(document, schema.items, depth + 1)];
  if (type === "integer" || type === "number") return clamp(1, schema.minimum, schema.maximum);
  if (type === "boolean") return true;
  if (type === "string") return schema.format === "uri" ? "https://example.com" : "example";
  return null;
}

function clamp(preferred: number, low: Json | undefined, high: Json | undefined): number {
  const above = typeof low === "number" ? Math.max(preferred, low) : preferred;
  return typeof high === "number" ? Math.min(above, high) : above;
}
