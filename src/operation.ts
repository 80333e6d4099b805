/**
 * @module
 * An operation declared once: its route (method, path template, facts), the parts of a request it
 * reads as one schema (each parameter and the body as the document declares it, with the
 * hand-written reader the service reads it with), its answers as the document declares them, and
 * its handler. `routes.ts` routes by the declarations and `openapi/mod.ts` writes the document
 * from them. A request is read through its operation's schema before the handler runs, so a
 * handler gets values, never text, and every refusal is the error object the answers declare.
 */
import type { Context, RouteHandler } from "./context.ts";
import type { Json } from "./types.ts";
import type { Validation } from "./validation.ts";
import { readJsonBody } from "./read-body.ts";
import { describe, joinIssues } from "./validation.ts";
import { parseQuery } from "./_internal/_query-string.ts";

/** One endpoint: method, path template under the base path (`{name}` is a parameter), handler, and its facts. */
export interface Route {
  readonly method: string;
  readonly path: string;
  readonly handler: RouteHandler;
  /** Served without an API key. */
  readonly public?: boolean;
  /** Set on a deprecated operation: its answers carry `Deprecation`, `Sunset` and a successor `Link`. */
  readonly deprecation?: Deprecation;
}

/** When a deprecated operation became deprecated, when it goes away, and what replaces it. */
export interface Deprecation {
  /** When it became deprecated, as an RFC 9745 date: `@` and Unix seconds. */
  readonly since: string;
  /** When it is removed, as an RFC 8594 HTTP-date. */
  readonly sunset: string;
  /** The path of its successor under the base path, e.g. `/pets`. */
  readonly successor: string;
}

/** A value a request carries in its path, its query or a header: as the document declares it, and how the service reads it. */
export interface Parameter<T> {
  readonly name: string;
  readonly in: "path" | "query" | "header";
  readonly required: boolean;
  readonly description: string;
  /** Its JSON Schema, as the document states it. */
  readonly schema: Json;
  /** Reads the text as sent (`undefined` when absent; a path's still percent-encoded): the value, or every problem. */
  read(text: string | undefined): Validation<T>;
}

/** An `application/json` request body: as the document declares it, and how the service reads it. */
export interface JsonBody<T> {
  readonly description: string;
  /** Its JSON Schema, as the document states it (a reference to a component). */
  readonly schema: Json;
  readonly example: Json;
  /** Checks the text `read-body.ts` read (media type, encoding and size checked there): the value, or every problem. */
  read(text: string): Validation<T>;
}

/** The parameters an operation reads, each under the name its handler gets the value by. */
export type ParameterSet = Readonly<Record<string, Parameter<unknown>>>;

/** What a handler gets: each parameter's value under its key, and the body's (if any) as `body`. */
export type Input<P extends ParameterSet, Body> = { readonly [Key in keyof P]: P[Key] extends Parameter<infer T> ? T : never } & { readonly body: Body };

/** Everything the service and its document know of one operation. */
export interface OperationDeclaration<P extends ParameterSet, Body> extends Omit<Route, "handler"> {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  /** How every refusal's message starts, e.g. `Cannot get pet`. */
  readonly action: string;
  readonly parameters: P;
  readonly body?: JsonBody<Body>;
  /** ParameterSet the document declares that another part reads: `If-None-Match` (the context), `X-Request-Id` (the access log). */
  readonly alsoDocumented?: readonly Json[];
  /** Its answers by status, as the document declares them (`openapi/answers.ts`). */
  readonly answers: Readonly<Record<string, Json>>;
  /** Answers the request, its parameters and body already read: now, or a promise where it waits. */
  handler(context: Context, input: Input<P, Body>): Response | Promise<Response>;
}

/** A declared operation, whatever it reads: what the route table and the document take. */
export type Operation = OperationDeclaration<ParameterSet, unknown>;

/** Declares an operation: its handler's input is typed from its parameters and body. */
export function operation<P extends ParameterSet, Body = undefined>(declaration: OperationDeclaration<P, Body>): Operation {
  return Object.freeze(declaration);
}

// A refusal's code by where the refused value was.
const CODES = { path: "invalid_path", query: "invalid_query", header: "invalid_header" } as const;

/**
 * The route that serves an operation: the request is read in a fixed order, the path, the query,
 * the headers, then the body, and the first part with a problem is refused, naming every problem
 * of that part; otherwise the handler runs with the values.
 */
export function routeOf(operation: Operation): Route {
  const { method, path, deprecation, parameters, body, action } = operation;
  const all = Object.entries(parameters);
  const where = (place: Parameter<unknown>["in"]) => all.filter(([, parameter]) => parameter.in === place);
  const [pathParameters, queryParameters] = [where("path"), where("query")];
  // A header's name as the Fetch API keeps it, lowercase, so no request lowercases it again.
  const headerParameters = where("header").map(([key, parameter]) => [key, parameter, parameter.name.toLowerCase()] as const);
  const known = queryParameters.map(([, parameter]) => `"${parameter.name}"`).join(", ");
  const refused = (context: Context, place: keyof typeof CODES, problems: readonly string[]) => context.error(CODES[place], `${action}: ${joinIssues(problems)}`);

  // Not async, and nothing made that a request does not need: an operation without a body reads its
  // request and calls its handler in one step (measured in bench/RESULTS.md, issue 49).
  function handler(context: Context): Response | Promise<Response> {
    const input: Record<string, unknown> = {};
    let problems: string[] | undefined;
    for (const [key, parameter] of pathParameters) problems = take(input, key, parameter.read(context.params[parameter.name]), problems);
    if (problems !== undefined) return refused(context, "path", problems);
    if (queryParameters.length > 0) {
      const given = new Map<string, string>();
      problems = splitQuery(context.query, queryParameters, known, given);
      for (const [key, parameter] of queryParameters) problems = take(input, key, parameter.read(given.get(parameter.name)), problems);
      if (problems !== undefined) return refused(context, "query", problems);
    }
    for (const [key, parameter, field] of headerParameters) problems = take(input, key, parameter.read(context.request.headers.get(field) ?? undefined), problems);
    if (problems !== undefined) return refused(context, "header", problems);
    return body === undefined ? operation.handler(context, input as Input<ParameterSet, unknown>) : withBody(context, input, body);
  }

  // The body's one wait, then the rest in its continuation: a handler that answers now (a store that
  // creates now) adds no promise of its own (`_answerNow`, measured in bench/RESULTS.md, issue 53, fifth round).
  function withBody(context: Context, input: Record<string, unknown>, body: JsonBody<unknown>): Promise<Response> {
    return readJsonBody(context.request, context.maxBodyBytes, action).then((text) => {
      if (!text.ok) return context.error(text.refusal.code, text.refusal.message, text.refusal.headers); // 400, 413 or 415
      const value = body.read(text.value);
      if (!value.ok) return context.error("invalid_body", `${action}: ${joinIssues(value.issues)}`);
      input["body"] = value.value;
      return operation.handler(context, input as Input<ParameterSet, unknown>);
    });
  }

  return { method, path, handler, ...(operation.public === true ? { public: true } : {}), ...(deprecation === undefined ? {} : { deprecation }) };
}

/** Puts a read value into `input` under `key`; the problems so far, with the read's added if it has some. */
function take(input: Record<string, unknown>, key: string, read: Validation<unknown>, problems: string[] | undefined): string[] | undefined {
  if (read.ok) {
    input[key] = read.value;
    return problems;
  }
  return [...(problems ?? []), ...read.issues];
}

/** Fills `given` with a query's declared parameters by name (the first of a repeated one); the others' problems, unknown or repeated. */
function splitQuery(query: string, parameters: readonly [string, Parameter<unknown>][], known: string, given: Map<string, string>): string[] | undefined {
  let problems: string[] | undefined;
  for (const [name, value] of parseQuery(query)) {
    if (!parameters.some(([, parameter]) => parameter.name === name)) (problems ??= []).push(`unknown parameter ${describe(name)}; known are ${known}`);
    else if (given.has(name)) (problems ??= []).push(`"${name}" must be given at most once`);
    else given.set(name, value);
  }
  return problems;
}
