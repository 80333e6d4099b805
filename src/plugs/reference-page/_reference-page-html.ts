/**
 * @module
 * Private to the reference page: the whole page as HTML, made from an OpenAPI document. Short to
 * scan: the first screen holds the base URL, the key field and the main operations; then each
 * operation grouped by tag (the minor ones collapsed), the error codes and the schemas, whose long
 * details wait in `<details>` until asked for.
 */
import type { Json } from "../../types.ts";
import type { Operation } from "./_reference-page-operation.ts";
import { BASE_URL_MARK, field, isMain, namesCode, operationsOf, prose, renderOperation } from "./_reference-page-operation.ts";
import { escapeHtml, listAt, objectAt, propertiesOf, resolve, schemaSummary, textAt } from "./_reference-page-schema.ts";

/** The page's inline style and script, each allowed by its hash in the page's policy. */
export interface PageAssets {
  readonly style: string;
  readonly script: string;
}

// A paw print: the page's icon, inline so that the browser asks no server for one.
const ICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Cg fill='%230f766e'%3E%3Cellipse cx='16' cy='21' rx='7' ry='6'/%3E%3Ccircle cx='7' cy='13' r='3'/%3E%3Ccircle cx='12.5' cy='7.5' r='3'/%3E%3Ccircle cx='19.5' cy='7.5' r='3'/%3E%3Ccircle cx='25' cy='13' r='3'/%3E%3C/g%3E%3C/svg%3E";

/** The reference page of `document` for an API under `basePath`; its absolute base URL is left as `BASE_URL_MARK`. */
export function renderPage(document: Json, basePath: string, assets: PageAssets): string {
  const info = objectAt(objectAt(document).info);
  const title = textAt(info.title) || "API";
  const operations = operationsOf(document);
  const codes = errorCodesOf(document);
  const groups = groupByTag(document, operations);
  const openApiUrl = `.${basePath}/openapi.json`;
  // A document with only minor operations still gets a list to start from.
  const main = operations.some(isMain) ? operations.filter(isMain) : operations;
  const layoutOf = (entry: Operation) => (entry === main[0] ? "first" : main.includes(entry) ? "main" : "minor");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)} ${escapeHtml(textAt(info.version))} · API reference</title>
<link rel="icon" href="${ICON}">
<style>${assets.style}</style>
</head>
<body data-base-path="${escapeHtml(basePath)}">
<a class="skip" href="#main">Skip to the reference</a>
<header class="top"><div class="top-inner">
<p class="brand"><svg class="logo" viewBox="0 0 32 32" aria-hidden="true"><ellipse cx="16" cy="21" rx="7" ry="6"/><circle cx="7" cy="13" r="3"/><circle cx="12.5" cy="7.5" r="3"/><circle cx="19.5" cy="7.5" r="3"/><circle cx="25" cy="13" r="3"/></svg> API reference</p>
<h1>${escapeHtml(title)} <span class="version">${escapeHtml(textAt(info.version))}</span></h1>
<p class="lede">${escapeHtml(textAt(info.summary))}</p>
</div></header>
<div class="layout">
${renderContents(groups, openApiUrl)}
<main id="main" tabindex="-1">
${renderIntro(document, openApiUrl, main, operations.filter((entry) => !main.includes(entry)))}
${groups.map(({ name, description, entries }) => `<section class="group" aria-labelledby="tag-${slug(name)}">
<h2 id="tag-${slug(name)}">${escapeHtml(name)}</h2>${description === "" ? "" : `<p class="group-lede">${escapeHtml(description)}</p>`}
${entries.map((entry) => renderOperation(document, entry, codes, layoutOf(entry))).join("\n")}
</section>`).join("\n")}
${renderErrorCodes(document, operations, codes)}
${renderSchemas(document)}
</main>
</div>
<footer class="foot"><p>Made from <a href="${openApiUrl}">the OpenAPI document</a> this service serves. The page loads nothing from any other site, and your key stays in this tab.</p></footer>
<p class="sr-only" id="copy-status" role="status" aria-live="polite"></p>
<script>${assets.script}</script>
</body>
</html>
`;
}

/** A tag and its operations, in the document's order of tags (untagged operations last). */
interface Group {
  readonly name: string;
  readonly description: string;
  readonly entries: readonly Operation[];
}

function groupByTag(document: Json, operations: readonly Operation[]): Group[] {
  const declared = listAt(objectAt(document).tags).map((tag) => ({ name: textAt(objectAt(tag).name), description: textAt(objectAt(tag).description) }));
  const tagOf = (entry: Operation) => textAt(listAt(entry.operation.tags)[0]) || "Other operations";
  const names = [...new Set([...declared.map((tag) => tag.name), ...operations.map(tagOf)])];
  return names
    .map((name) => ({ name, description: declared.find((tag) => tag.name === name)?.description ?? "", entries: operations.filter((entry) => tagOf(entry) === name) }))
    .filter((group) => group.entries.length > 0);
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, "-");
}

function renderContents(groups: readonly Group[], openApiUrl: string): string {
  const link = (entry: Operation) => `<li><a href="#${entry.anchor}"><span class="method m-${entry.method}">${entry.method.toUpperCase()}</span><span class="toc-path${entry.operation.deprecated === true ? " gone" : ""}">${escapeHtml(entry.path)}</span></a></li>`;
  return `<nav class="toc" aria-label="Contents">
${groups.map((group) => `<p class="toc-group">${escapeHtml(group.name)}</p><ul>${group.entries.map(link).join("")}</ul>`).join("\n")}
<p class="toc-group">Reference</p><ul><li><a href="#errors">Error codes</a></li><li><a href="#schemas">Schemas</a></li><li><a href="${openApiUrl}">openapi.json</a></li></ul>
</nav>`;
}

function renderIntro(document: Json, openApiUrl: string, main: readonly Operation[], others: readonly Operation[]): string {
  const info = objectAt(objectAt(document).info);
  const schemes = Object.values(objectAt(objectAt(objectAt(document).components).securitySchemes)).map((value) => resolve(document, value));
  const bearer = schemes.some((scheme) => scheme.type === "http" && textAt(scheme.scheme).toLowerCase() === "bearer");
  const about = prose(textAt(info.description)) + schemes.map((scheme) => prose(textAt(scheme.description))).join("");
  const link = (entry: Operation) => `<a href="#${entry.anchor}">${entry.method.toUpperCase()} ${escapeHtml(entry.path)}</a>`;
  return `<section class="intro" aria-labelledby="start">
<h2 id="start">Start here</h2>
<div class="start">
<div class="start-item"><h3 class="start-label">Base URL</h3>
<div class="copy-row"><code class="base" id="base-url">${BASE_URL_MARK}</code><button type="button" class="copy" data-copy="base-url" aria-label="Copy the base URL" data-script-only hidden>Copy</button></div>
<p class="hint">Every path below is relative to it; <a href="${openApiUrl}">openapi.json</a> describes them all.</p></div>
<div class="start-item"><h3 class="start-label"><label for="api-key">API key</label></h3>
<div class="key-row" data-script-only hidden><input id="api-key" type="password" autocomplete="off" spellcheck="false" placeholder="paste one of the server’s keys" aria-describedby="key-hint"><button type="button" id="forget-key">Forget</button></div>
<p class="hint" id="key-hint">${bearer ? "Sent as <code>Authorization: Bearer &lt;key&gt;</code>. " : ""}<span data-script-only hidden>Typed here, it fills in every curl example and “Try it”, and stays in this tab only (sessionStorage): never in a URL or a cookie, gone when the tab closes.</span><span data-script-free>The curl examples read it from <code>$API_KEY</code>.</span></p></div>
</div>
<h3 class="start-label" id="ops-title">Operations</h3>
<ul class="quick" aria-labelledby="ops-title">${main.map(quickLink).join("")}</ul>
<p class="hint also">${others.length === 0 ? "" : `Also ${others.map(link).join(", ")}; then `}<a href="#errors">error codes</a> and <a href="#schemas">schemas</a>.</p>
${about === "" ? "" : `<details class="about"><summary>About this API</summary><div class="prose">${about}</div></details>`}
</section>`;
}

/** A main operation in the first screen's list: method, path and summary, linking to its section. */
function quickLink(entry: Operation): string {
  const gone = entry.operation.deprecated === true ? " gone" : "";
  return `<li><a href="#${entry.anchor}"><span class="method m-${entry.method}">${entry.method.toUpperCase()}</span> <code class="path${gone}">${escapeHtml(entry.path)}</code> <span class="quick-summary">${escapeHtml(textAt(entry.operation.summary))}</span></a></li>`;
}

/** The codes the document's error object can carry: every `code` property's `enum` among its schemas. */
function errorCodesOf(document: Json): ReadonlySet<string> {
  const schemas = Object.values(objectAt(objectAt(objectAt(document).components).schemas));
  return new Set(schemas.flatMap((schema) => listAt(objectAt(objectAt(resolve(document, schema).properties).code).enum).map(textAt)).filter((code) => code !== ""));
}

function renderErrorCodes(document: Json, operations: readonly Operation[], codes: ReadonlySet<string>): string {
  if (codes.size === 0) return "";
  const rows = [...codes].map((code) => {
    const uses = operations.flatMap((entry) => Object.entries(objectAt(entry.operation.responses))
      .filter(([, value]) => namesCode(textAt(resolve(document, value).description), code))
      .map(([status]) => `<a href="#${entry.anchor}"><span class="status s${status[0]}">${escapeHtml(status)}</span> ${escapeHtml(textAt(entry.operation.operationId) || entry.path)}</a>`));
    // A code no operation names may still be named by a shared answer (one any path can give, say).
    const shared = Object.entries(objectAt(objectAt(objectAt(document).components).responses))
      .filter(([, value]) => namesCode(textAt(resolve(document, value).description), code))
      .map(([name]) => `<span class="hint">the shared <code>${escapeHtml(name)}</code> answer</span>`);
    const all = [...uses, ...(uses.length === 0 ? shared : [])];
    return `<li><code class="code">${escapeHtml(code)}</code><span class="uses">${all.join(" ") || '<span class="hint">named by no answer of the document</span>'}</span></li>`;
  });
  return `<section class="group" id="errors" aria-labelledby="errors-title">
<h2 id="errors-title">Error codes</h2>
<p class="group-lede">Every error answer carries the error object, whose <code>code</code> is one of these ${codes.size}.</p>
<details class="listing"><summary>Each code and the answers that give it</summary><ul class="codes-list">${rows.join("")}</ul></details>
</section>`;
}

function renderSchemas(document: Json): string {
  const schemas = Object.entries(objectAt(objectAt(objectAt(document).components).schemas));
  if (schemas.length === 0) return "";
  const sections = schemas.map(([name, value]) => {
    const schema = resolve(document, value);
    const fields = propertiesOf(document, schema).map(({ name: property, schema: propertySchema, required }) =>
      field(property, "", required, schemaSummary(document, propertySchema), textAt(resolve(document, propertySchema).description)));
    const type = Array.isArray(schema.type) ? schema.type.join(" or ") : textAt(schema.type);
    return `<details class="schema" id="schema-${slug(name)}">
<summary><h3>${escapeHtml(name)}</h3>${type === "" ? "" : ` <span class="meta">${escapeHtml(type)}</span>`}</summary>
<p class="meta">${schemaSummary(document, schema)}${schema.additionalProperties === false ? " · no other members" : ""}</p>
<div class="prose">${prose(textAt(schema.description))}</div>${fields.length === 0 ? "" : `<ul class="fields">${fields.join("")}</ul>`}
</details>`;
  });
  return `<section class="group" id="schemas" aria-labelledby="schemas-title">
<h2 id="schemas-title">Schemas</h2>
${sections.join("\n")}
</section>`;
}
