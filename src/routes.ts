/**
 * @module
 * Every endpoint of the API in one table, and the matcher that finds a request's route.
 */
import type { Context, RouteHandler } from "./context.ts";
import type { Reply } from "./reply.ts";
import { createPet } from "./create-pet.ts";
import { errorReply } from "./errors.ts";
import { getPet } from "./get-pet.ts";
import { listPets } from "./list-pets.ts";
import { OPENAPI_JSON } from "./openapi.ts";
import { jsonTextReply } from "./reply.ts";

/** One endpoint: method, path template under the base path (`{name}` is a parameter), handler. */
export interface Route {
  readonly method: string;
  readonly path: string;
  readonly handler: RouteHandler;
  /** Answers carry getPet's deprecation headers. */
  readonly deprecated?: boolean;
  /** Served without an API key. */
  readonly public?: boolean;
}

/** The API's routes; the first match wins. */
export const ROUTES: readonly Route[] = [
  { method: "GET", path: "/pets", handler: listPets },
  { method: "POST", path: "/pets", handler: createPet },
  { method: "GET", path: "/pets/{petId}", handler: getPet, deprecated: true },
  // The interface refers to this operation without specifying it: say so instead of a bare 404.
  { method: "GET", path: "/store/orders", handler: notImplemented },
  // The API's description holds no data, so tools may read it without a key.
  { method: "GET", path: "/openapi.json", handler: openApiDocument, public: true },
];

/** The routes whose path template matches a path, with the path's parameters. */
export interface PathMatch {
  readonly routes: readonly Route[];
  readonly params: Readonly<Record<string, string>>;
}

/** The route table grouped by path template, split into segments once. */
const TEMPLATES = [...new Set(ROUTES.map((route) => route.path))].map((path) => ({
  segments: path.split("/"),
  routes: ROUTES.filter((route) => route.path === path),
}));

/** Matches a path (relative to the base path) against the route table; `undefined` when none fits. */
export function matchPath(path: string): PathMatch | undefined {
  const segments = path.split("/");
  for (const template of TEMPLATES) {
    const params = matchTemplate(template.segments, segments);
    if (params !== undefined) return { routes: template.routes, params };
  }
  return undefined;
}

/** The methods a path answers, for the `Allow` header: HEAD wherever GET is. */
export function allowedMethods(match: PathMatch): string {
  const methods = match.routes.map((route) => route.method);
  if (methods.includes("GET")) methods.push("HEAD");
  return methods.sort().join(", ");
}

function matchTemplate(parts: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const segment = segments[i]!;
    if (part.startsWith("{")) {
      if (segment === "") return undefined;
      params[part.slice(1, -1)] = segment;
    } else if (part !== segment) {
      return undefined;
    }
  }
  return params;
}

function openApiDocument(): Promise<Reply> {
  return Promise.resolve(jsonTextReply(200, OPENAPI_JSON, { "cache-control": "public, max-age=300" }));
}

function notImplemented(context: Context): Promise<Reply> {
  return Promise.resolve(errorReply(
    "not_implemented",
    `Cannot list store orders: GET ${context.path} is referred to by the interface but not specified, so this service does not implement it`,
  ));
}
