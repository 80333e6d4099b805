/**
 * @module
 * Helpers for the in-process tests: an app over a fresh memory store, and requests to it.
 */
import type { App, AppOptions, ErrorBody, Pet, PetStore } from "../src/mod.ts";
import { createApp, createMemoryStore, OPENAPI_DOCUMENT } from "../src/mod.ts";
import { ROUTES } from "../src/routes.ts";
import { standInRequest } from "./fixtures/node-stand-ins.ts";

/** The key every test app accepts. */
export const KEY = "test-key";

/** Headers that authenticate with `KEY`. */
export const AUTH: { readonly authorization: string } = { authorization: `Bearer ${KEY}` };

/** An app over a fresh memory store (or the given one) accepting `KEY`. */
export function testApp(options: Partial<AppOptions> = {}): App & { store: PetStore } {
  const store = options.store ?? createMemoryStore();
  return { ...createApp({ apiKeys: [KEY], ...options, store }), store };
}

/**
 * Sends a request to an app; paths are relative to `http://pets.test`. Under `STAND_INS=node`
 * (`stand-ins.test.ts`) the app gets Node's lazy request instead of a `Request`.
 */
export async function call(app: App, path: string, init: RequestInit = {}): Promise<Response> {
  const url = `http://pets.test${path}`;
  return await app.fetch(process.env["STAND_INS"] === "node" ? await standInRequest(url, init) : new Request(url, init));
}

/** An authenticated GET. */
export function get(app: App, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return call(app, path, { headers: { ...AUTH, ...headers } });
}

/** An authenticated `POST /v1/pets` with a JSON body (a string is sent as it is). */
export function post(app: App, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return call(app, "/v1/pets", {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Creates pets in order and returns them as stored. */
export async function createPets(app: App, pets: readonly object[]): Promise<Pet[]> {
  const created: Pet[] = [];
  for (const pet of pets) created.push((await (await post(app, pet)).json()) as Pet);
  return created;
}

/** Reads an error response, checking it is exactly the interface's error object for `status`. */
export async function errorOf(response: Response): Promise<ErrorBody> {
  const body = (await response.json()) as ErrorBody;
  if (response.headers.get("content-type") !== "application/json") {
    throw new Error(`Error response has Content-Type ${response.headers.get("content-type")}`);
  }
  const keys = Object.keys(body).sort().join(",");
  if (keys !== "code,message,status" || body.status !== response.status || typeof body.message !== "string") {
    throw new Error(`Not an error object for ${response.status}: ${JSON.stringify(body)}`);
  }
  return body;
}

/** A path of the API for a route's template, each parameter filled with 1: `/pets/{petId}` is `/pets/1`. */
export function pathOf(template: string): string {
  return template.replace(/\{[^}]+\}/g, "1");
}

/**
 * The methods the route table answers at a template, as `Allow` writes them (sorted, HEAD wherever
 * GET is): read from the declarations, so a test of a path's methods follows when a path gains one.
 */
export function allowedAt(template: string): string {
  const methods = new Set(ROUTES.filter((route) => route.path === template).map((route) => route.method));
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort().join(", ");
}

/** A method the route table does not answer at a template (for a 405), one every HTTP client can send. */
export function refusedAt(template: string): string {
  const answered = allowedAt(template).split(", ");
  return ["PUT", "DELETE", "PATCH", "POST"].find((method) => !answered.includes(method))!;
}

/**
 * The headers of an answer to `method` (lowercase) at `path` (a template of the document) that the
 * document does not declare on that operation's answer for its status, its length and type aside:
 * what CORS would not let a page read, and a client generated from the document would not know.
 */
export function undeclaredHeaders(method: string, path: string, response: Response): string[] {
  const document = OPENAPI_DOCUMENT as { paths: Record<string, Record<string, { responses: Record<string, any> }>>; components: { responses: Record<string, any> } };
  const declared = document.paths[path]?.[method]?.responses[String(response.status)];
  if (declared === undefined) return [`no ${response.status} answer is declared`];
  const resolved = declared.$ref === undefined ? declared : document.components.responses[declared.$ref.split("/").pop()];
  const names = new Set(Object.keys(resolved.headers ?? {}).map((name) => name.toLowerCase()));
  return [...response.headers.keys()].filter((name) => name !== "content-type" && name !== "content-length" && !names.has(name));
}
