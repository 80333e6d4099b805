/**
 * @module
 * Private to the reference page: one operation of the OpenAPI document as HTML. What it is for,
 * a curl example to copy, its parameters, body and answers (with the error codes each names)
 * collapsed, and a "try it" form that the page's script sends.
 *
 * The API's absolute base URL is written as a mark, which `mod.ts` replaces with the URL each
 * request was made to: `BASE_URL_MARK` where it is text, `SHELL_BASE_URL_MARK` inside a
 * single-quoted shell word.
 */
import type { Json } from "../../types.ts";
import type { JsonObject } from "./_reference-page-schema.ts";
import { inSingleQuotes, shellWord } from "./_reference-page-shell.ts";
import { escapeHtml, exampleOf, isObject, listAt, objectAt, propertiesOf, refName, resolve, schemaSummary, textAt } from "./_reference-page-schema.ts";

/** Where the base URL goes in the rendered page, as text. */
export const BASE_URL_MARK = "\0";
/** Where the base URL goes inside a single-quoted shell word (each `'` in it written `'\\''`). */
export const SHELL_BASE_URL_MARK = "\u0001";

/** The HTTP methods a path item may hold, in the order the page shows them. */
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** One operation: its method, path, anchor and the objects that describe it. */
export interface Operation {
  readonly method: string;
  readonly path: string;
  /** The operation's `id` on the page: `op-` and its operationId. */
  readonly anchor: string;
  readonly operation: JsonObject;
  /** Its parameters, those of its path item included, each resolved. */
  readonly parameters: readonly JsonObject[];
}

/** Every operation of the document, in the order of its paths. */
export function operationsOf(document: Json): Operation[] {
  const paths = objectAt(objectAt(document).paths);
  return Object.entries(paths).flatMap(([path, value]) => {
    const item = resolve(document, value);
    return METHODS.filter((method) => isObject(item[method])).map((method) => {
      const operation = objectAt(item[method]);
      const id = textAt(operation.operationId) || `${method}${path}`;
      return { method, path, anchor: `op-${id.replace(/[^A-Za-z0-9_-]/g, "-")}`, operation, parameters: parametersOf(document, item, operation) };
    });
  });
}

/** The path item's parameters and the operation's, the operation's winning (OpenAPI matches them by name and place). */
function parametersOf(document: Json, item: JsonObject, operation: JsonObject): JsonObject[] {
  const byKey = new Map<string, JsonObject>();
  for (const value of [...listAt(item.parameters), ...listAt(operation.parameters)]) {
    const parameter = resolve(document, value);
    byKey.set(`${textAt(parameter.in)} ${textAt(parameter.name)}`, parameter);
  }
  return [...byKey.values()];
}

/** Whether the operation needs a key: a security requirement applies and none of its choices is empty. */
export function needsKey(document: Json, operation: JsonObject): boolean {
  const requirements = listAt(operation.security ?? objectAt(document).security);
  return requirements.length > 0 && requirements.every((requirement) => Object.keys(objectAt(requirement)).length > 0);
}

/** Some prose of the document as HTML: paragraphs at blank lines, `code` spans. */
export function prose(text: string): string {
  return text
    .split(/\n\s*\n/)
    .filter((paragraph) => paragraph.trim() !== "")
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/`([^`]+)`/g, "<code>$1</code>")}</p>`)
    .join("");
}

/**
 * Whether an operation is one a first-time reader starts from: it can succeed (it declares a 2xx
 * answer; one that only refuses, such as a 501, cannot), and it is not HEAD (a GET without its
 * body) or OPTIONS (a browser's preflight). A deprecated one still counts: it still works. The
 * others are shown collapsed.
 */
export function isMain(entry: Operation): boolean {
  const succeeds = Object.keys(objectAt(entry.operation.responses)).some((status) => /^2/.test(status));
  return succeeds && entry.method !== "head" && entry.method !== "options";
}

/** How an operation is shown: the first main one with its "try it" open, other main ones, the rest collapsed. */
export type Layout = "first" | "main" | "minor";

/** The section of one operation. `errorCodes` are the codes the document's error object can carry. */
export function renderOperation(document: Json, entry: Operation, errorCodes: ReadonlySet<string>, layout: Layout): string {
  const { method, path, anchor, operation } = entry;
  const deprecated = operation.deprecated === true;
  const keyed = needsKey(document, operation);
  const id = textAt(operation.operationId);
  const title = `<h3 class="op-title" id="${anchor}-title"><span class="method m-${method}">${method.toUpperCase()}</span> <code class="path${deprecated ? " gone" : ""}">${escapeHtml(path)}</code>${deprecated ? ' <span class="badge warn">Deprecated</span>' : ""}</h3>`;
  const summary = `<p class="op-summary">${escapeHtml(textAt(operation.summary))}</p>`;
  const meta = `<p class="op-meta">${id === "" ? "" : `<code>${escapeHtml(id)}</code> · `}${keyed ? "needs an API key" : "no key needed"}</p>`;
  const example = renderExample(document, entry, keyed);
  const details = `<div class="prose">${prose(textAt(operation.description))}</div>
${renderParameters(document, entry.parameters)}${renderBody(document, operation)}${renderAnswers(document, operation, errorCodes)}`;
  if (layout === "minor") {
    return `<details class="op minor" id="${anchor}">
<summary>${title}${summary}</summary>
<div class="op-body">${meta}${example}
${details}
${renderTryIt(document, entry, keyed, false)}</div>
</details>`;
  }
  return `<section class="op" id="${anchor}" aria-labelledby="${anchor}-title">
${title}${summary}${meta}${example}
<details class="more"><summary>${detailsLabel(entry)}</summary>
${details}</details>
${renderTryIt(document, entry, keyed, layout === "first")}
</section>`;
}

/** What the collapsed details of a main operation hold, in a few words. */
function detailsLabel(entry: Operation): string {
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  const parts = [
    textAt(entry.operation.description) === "" ? "" : "Description",
    entry.parameters.length === 0 ? "" : count(entry.parameters.length, "parameter"),
    entry.operation.requestBody === undefined ? "" : "request body",
    count(Object.keys(objectAt(entry.operation.responses)).length, "answer"),
  ];
  const text = parts.filter((part) => part !== "").join(", ");
  return escapeHtml(text.charAt(0).toUpperCase() + text.slice(1));
}

/** The curl example in its box, with a button that copies it (shown by the script). */
function renderExample(document: Json, entry: Operation, keyed: boolean): string {
  const id = textAt(entry.operation.operationId) || entry.path;
  return `<div class="example"><div class="example-head"><span>Example</span><button type="button" class="copy" data-copy="${entry.anchor}-curl" aria-label="Copy the curl example of ${escapeHtml(id)}" data-script-only hidden>Copy</button></div>
<pre class="curl" id="${entry.anchor}-curl"><code>${curlExample(document, entry, keyed)}</code></pre></div>`;
}

function renderParameters(document: Json, parameters: readonly JsonObject[]): string {
  if (parameters.length === 0) return "";
  const items = parameters.map((parameter) => field(textAt(parameter.name), textAt(parameter.in), parameter.required === true, schemaSummary(document, parameter.schema), textAt(parameter.description)));
  return `<h4>Parameters</h4>\n<ul class="fields">${items.join("")}</ul>\n`;
}

/** One parameter or property: name, where it goes, whether it is required, what it allows, what it means. */
export function field(name: string, where: string, required: boolean, summary: string, description: string): string {
  const place = where === "" ? "" : ` <span class="where">${escapeHtml(where)}</span>`;
  const need = required ? ' <span class="need">required</span>' : "";
  return `<li><div class="field-head"><code class="name">${escapeHtml(name)}</code>${place}${need}</div><div class="type">${summary}</div>${description === "" ? "" : `<div class="desc">${prose(description)}</div>`}</li>`;
}

function renderBody(document: Json, operation: JsonObject): string {
  const body = resolve(document, operation.requestBody);
  const content = Object.entries(objectAt(body.content));
  if (content.length === 0) return "";
  const [mediaType, media] = content[0]!;
  const schema = objectAt(media).schema;
  const fields = propertiesOf(document, schema).map(({ name, schema: property, required }) =>
    field(name, "", required, schemaSummary(document, property), textAt(resolve(document, property).description)));
  return `<h4>Request body</h4>
<p class="meta">${body.required === true ? '<span class="need">required</span> · ' : ""}<code>${escapeHtml(mediaType)}</code> · ${schemaSummary(document, schema)}</p>
<div class="prose">${prose(textAt(body.description))}</div>${fields.length === 0 ? "" : `<ul class="fields">${fields.join("")}</ul>`}\n`;
}

function renderAnswers(document: Json, operation: JsonObject, errorCodes: ReadonlySet<string>): string {
  const answers = Object.entries(objectAt(operation.responses)).map(([status, value]) => {
    const declared = resolve(document, value);
    const description = textAt(declared.description);
    const kind = /^[1-5]/.test(status) ? status[0] : "x";
    const codes = [...errorCodes].filter((code) => namesCode(description, code));
    const media = Object.entries(objectAt(declared.content))[0];
    const headers = Object.entries(objectAt(declared.headers)).map(([name, header]) =>
      `<li><code>${escapeHtml(name)}</code> ${escapeHtml(textAt(resolve(document, header).description))}</li>`);
    return `<li class="answer"><span class="status s${kind}">${escapeHtml(status)}</span><div class="answer-text">${prose(description)}${
      codes.length === 0 ? "" : `<p class="codes">Error ${codes.length === 1 ? "code" : "codes"}: ${codes.map((code) => `<code class="code">${escapeHtml(code)}</code>`).join(" ")}</p>`}${
      media === undefined ? "" : `<p class="meta">Body: <code>${escapeHtml(media[0])}</code> · ${schemaSummary(document, objectAt(media[1]).schema)}</p>`}${
      headers.length === 0 ? "" : `<details class="headers"><summary>${headers.length} ${headers.length === 1 ? "header" : "headers"}</summary><ul>${headers.join("")}</ul></details>`}</div></li>`;
  });
  return answers.length === 0 ? "" : `<h4>Answers</h4>\n<ul class="answers">${answers.join("")}</ul>`;
}

/** Whether a description names an error code as a word of its own. */
export function namesCode(description: string, code: string): boolean {
  let from = description.indexOf(code);
  for (; from !== -1; from = description.indexOf(code, from + 1)) {
    const before = description[from - 1] ?? " ";
    const after = description[from + code.length] ?? " ";
    if (!/[A-Za-z0-9_]/.test(before) && !/[A-Za-z0-9_]/.test(after)) return true;
  }
  return false;
}

/** The request body's media type and example, when the operation takes one. */
function bodyExample(document: Json, operation: JsonObject): { readonly mediaType: string; readonly text: string } | undefined {
  const first = Object.entries(objectAt(resolve(document, operation.requestBody).content))[0];
  if (first === undefined) return undefined;
  return { mediaType: first[0], text: JSON.stringify(exampleOf(document, objectAt(first[1]).schema)) };
}

/** The path with each required path parameter filled with an example. */
function examplePath(document: Json, entry: Operation): string {
  return entry.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const parameter = entry.parameters.find((candidate) => candidate.in === "path" && candidate.name === name);
    return parameter === undefined ? whole : encodeURIComponent(String(exampleOf(document, parameter.schema)));
  });
}

/** The curl example as HTML: every argument a shell word, the base URL left as its mark. */
function curlExample(document: Json, entry: Operation, keyed: boolean): string {
  const body = bodyExample(document, entry.operation);
  const method = entry.method === "get" || (entry.method === "post" && body !== undefined) ? "" : ` -X ${entry.method.toUpperCase()}`;
  const lines = [`curl -i${method} '${SHELL_BASE_URL_MARK}${escapeHtml(inSingleQuotes(examplePath(document, entry)))}'`];
  // Double quotes: the shell reads the key from $API_KEY. The script puts a typed key in its place.
  if (keyed) lines.push(`-H <span class="key-arg">${escapeHtml('"Authorization: Bearer $API_KEY"')}</span>`);
  if (body !== undefined) lines.push(`-H ${escapeHtml(shellWord(`Content-Type: ${body.mediaType}`))}`, `-d ${escapeHtml(shellWord(body.text))}`);
  return lines.join(" \\\n  ");
}

/** The "try it" form, hidden until the page's script shows it (without the script it could not send). */
function renderTryIt(document: Json, entry: Operation, keyed: boolean, open: boolean): string {
  const inputs = entry.parameters
    .filter((parameter) => ["path", "query", "header"].includes(textAt(parameter.in)))
    .map((parameter) => tryInput(document, entry, parameter));
  const body = bodyExample(document, entry.operation);
  const pretty = body === undefined ? "" : JSON.stringify(JSON.parse(body.text), null, 2);
  const bodyInput = body === undefined ? "" : `<label class="try-field wide" for="${entry.anchor}-body"><span>Body <small>${escapeHtml(body.mediaType)}</small></span><textarea id="${entry.anchor}-body" data-body="${escapeHtml(body.mediaType)}" rows="${pretty.split("\n").length + 1}" spellcheck="false">${escapeHtml(pretty)}</textarea></label>`;
  return `<details class="try" data-script-only hidden${open ? " open" : ""}>
<summary>Try it</summary>
<form class="try-form" data-method="${entry.method.toUpperCase()}" data-path="${escapeHtml(entry.path)}" data-keyed="${keyed}">
<div class="try-fields">${inputs.join("")}${bodyInput}</div>
<div class="try-actions"><button type="submit">Send ${entry.method.toUpperCase()} ${escapeHtml(entry.path)}</button>${keyed ? '<span class="hint">with the API key at the top of the page</span>' : ""}</div>
<div class="result" role="status" aria-live="polite"></div>
</form>
</details>`;
}

function tryInput(document: Json, entry: Operation, parameter: JsonObject): string {
  const name = textAt(parameter.name);
  const where = textAt(parameter.in);
  const id = `${entry.anchor}-${where}-${name}`.replace(/[^A-Za-z0-9_-]/g, "-");
  const schema = resolve(document, parameter.schema);
  const data = `id="${escapeHtml(id)}" data-in="${escapeHtml(where)}" data-name="${escapeHtml(name)}"${parameter.required === true ? " required" : ""}`;
  const choices = listAt(schema.enum);
  const control = choices.length > 0
    ? `<select ${data}><option value="">(none)</option>${choices.map((choice) => `<option>${escapeHtml(String(choice))}</option>`).join("")}</select>`
    : `<input ${data} value="${where === "path" ? escapeHtml(String(exampleOf(document, schema))) : ""}" placeholder="${escapeHtml(placeholderOf(schema))}" autocomplete="off" spellcheck="false">`;
  const label = `${escapeHtml(name)} <small>${escapeHtml(where)}${parameter.required === true ? ", required" : ""}</small>`;
  return `<label class="try-field" for="${escapeHtml(id)}"><span>${label}</span>${control}</label>`;
}

function placeholderOf(schema: JsonObject): string {
  if (schema.default !== undefined) return `default ${String(schema.default)}`;
  return refName(schema) ?? textAt(schema.type);
}
