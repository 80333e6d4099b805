/**
 * @module
 * The API's reference page: one HTML page, made from the OpenAPI document the service serves, with
 * every operation's parameters, body, answers, error codes and a curl example, and a "try it" form
 * per operation. The plug `referencePage()` answers it at `GET /`, without a key.
 *
 * It loads nothing: its style and script are inline, and its `Content-Security-Policy` allows
 * exactly those (by their SHA-256 hashes), requests to its own origin, and its inline icon. The page
 * is rendered once per app, on its first request; each answer only writes in the base URL.
 *
 * ```ts
 * import { createApp, createMemoryStore } from "animal-store";
 * import { referencePage } from "animal-store/reference-page";
 * const app = createApp({ store: createMemoryStore(), apiKeys: ["secret"], plugs: [referencePage()] });
 * ```
 */
import type { Json, Plug } from "../../mod.ts";
import { errorResponse, OPENAPI_DOCUMENT } from "../../mod.ts";
import { PAGE_SCRIPT, PAGE_STYLE } from "./_reference-page-assets.ts";
import { renderPage } from "./_reference-page-html.ts";
import { BASE_URL_MARK, SHELL_BASE_URL_MARK } from "./_reference-page-operation.ts";
import { escapeHtml } from "./_reference-page-schema.ts";
import { inSingleQuotes } from "./_reference-page-shell.ts";

/** The methods `/` answers when the page is on. */
export const REFERENCE_PAGE_METHODS = "GET, HEAD";

/** Answers `GET /` (outside the base path, without a key) with the page, made from `document` (default: the document the service serves). */
export function referencePage(document: Json = OPENAPI_DOCUMENT): Plug {
  return ({ basePath, baseUrlOf }) => {
    const page = createReferencePage(basePath, document);
    return {
      name: "referencePage",
      paths: { "/": REFERENCE_PAGE_METHODS },
      late: (request, path) => (path === "/" ? { answer: page(request, baseUrlOf(request)) } : undefined),
    };
  };
}

/** Answers a request for the page; `baseUrl` is the API's absolute base URL as the request reached it. */
export type ReferencePage = (request: Request, baseUrl: string) => Promise<Response>;

/** The page, its text split at the base URL's marks (kept as parts of their own), and its headers: made once. */
interface ReadyPage {
  readonly parts: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
}

/** The reference page of an API under `basePath`, made from `document` (default: the document the service serves). */
export function createReferencePage(basePath: string, document: Json = OPENAPI_DOCUMENT): ReferencePage {
  let ready: Promise<ReadyPage> | undefined;
  return async (request, baseUrl) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return errorResponse("method_not_allowed", `Cannot ${request.method} /: allowed methods are ${REFERENCE_PAGE_METHODS}`, { allow: REFERENCE_PAGE_METHODS });
    }
    ready ??= preparePage(document, basePath);
    const page = await ready;
    const text = escapeHtml(baseUrl);
    const inShell = escapeHtml(inSingleQuotes(baseUrl));
    const html = page.parts.map((part) => (part === BASE_URL_MARK ? text : part === SHELL_BASE_URL_MARK ? inShell : part)).join("");
    // A Response copies the record it is given: no answer shares headers with another.
    return new Response(html, { status: 200, headers: page.headers });
  };
}

async function preparePage(document: Json, basePath: string): Promise<ReadyPage> {
  const html = renderPage(document, basePath, { style: PAGE_STYLE, script: PAGE_SCRIPT });
  return {
    // Text never holds a mark (escapeHtml drops them), so a part equal to one is one.
    parts: Object.freeze(html.split(/([\0\u0001])/)),
    headers: Object.freeze({
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": await contentSecurityPolicy(PAGE_STYLE, PAGE_SCRIPT),
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      // The page changes only with the service: check back on each visit, it is small.
      "cache-control": "no-cache",
    }),
  };
}

/** Nothing from anywhere but this page's own inline style and script, its origin's API and its inline icon. */
export async function contentSecurityPolicy(style: string, script: string): Promise<string> {
  return [
    "default-src 'none'",
    `script-src '${await sha256(script)}'`,
    `style-src '${await sha256(style)}'`,
    "img-src data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** A CSP hash source: `sha256-` and the base64 SHA-256 digest of the text's UTF-8 bytes. */
async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return `sha256-${btoa(String.fromCharCode(...digest))}`;
}
