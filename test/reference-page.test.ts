import { describe, expect, test } from "bun:test";
import type { Json } from "../src/mod.ts";
import { OPENAPI_DOCUMENT } from "../src/mod.ts";
import { createReferencePage, referencePage } from "../src/plugs/reference-page/mod.ts";
import { AUTH, call, errorOf, testApp } from "./helpers.ts";

const pageApp = (options: Parameters<typeof testApp>[0] = {}) => testApp({ plugs: [referencePage()], ...options });

async function page(options: Parameters<typeof testApp>[0] = {}): Promise<{ response: Response; html: string }> {
  const response = await call(pageApp(options), "/");
  return { response, html: await response.text() };
}

/** The document's operations, as `[method, path, operation]`. */
function operations(document: Json = OPENAPI_DOCUMENT): [string, string, Record<string, any>][] {
  const paths = (document as Record<string, any>).paths as Record<string, Record<string, any>>;
  const methods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([method]) => methods.has(method)).map(([method, operation]): [string, string, Record<string, any>] => [method, path, operation]));
}

/** The HTML of one operation's section: a `<section>`, or a `<details>` for a minor operation. */
function section(html: string, operationId: string): string {
  const start = html.search(new RegExp(`<(?:section|details) class="op[^"]*" id="op-${operationId}"`));
  if (start === -1) throw new Error(`The page has no section for ${operationId}`);
  const end = html.slice(start + 1).search(/<(?:section|details) class="op[^"]*" id="op-|<\/section>\n<section class="group"|<\/main>/);
  return html.slice(start, start + 1 + end);
}

/** HTML as a reader sees it: without its tags, its character references read. */
function textOf(html: string): string {
  const entities: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
  return html.replace(/<[^>]*>/g, "").replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => entities[entity] ?? entity);
}

/** The text of one operation's curl example, as a reader copies it from the page. */
function curlText(html: string, operationId: string): string {
  const code = /<pre class="curl"[^>]*><code[^>]*>([\s\S]*?)<\/code><\/pre>/.exec(section(html, operationId))?.[1];
  if (code === undefined) throw new Error(`${operationId} has no curl example`);
  return textOf(code);
}

/** The arguments `sh` passes to curl when it runs `command` (curl replaced by a function printing them), with `$API_KEY` set to `key`. */
function curlArguments(command: string, key = "the-key"): string[] {
  const run = Bun.spawnSync(["sh", "-c", `curl() { printf '%s\\n' "$@"; }\n${command}`], { env: { PATH: "/usr/bin:/bin", API_KEY: key } });
  return run.stdout.toString().split("\n").slice(0, -1);
}

/** The SHA-256 CSP source of a text. */
function sha256(text: string): string {
  return `sha256-${new Bun.CryptoHasher("sha256").update(text).digest("base64")}`;
}

describe("GET / without the referencePage plug (the library's default)", () => {
  test("answers 404 not_found, as before: the app answers under its base path only", async () => {
    const response = await call(testApp(), "/");
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe("not_found");
  });
});

describe("GET / with the referencePage plug", () => {
  test("answers 200 with an HTML page, without a key", async () => {
    const { response, html } = await page();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  test("shows every operation of the document it serves, with its summary", async () => {
    const { html } = await page();
    for (const [method, path, operation] of operations()) {
      const html_ = section(html, operation.operationId);
      expect(html_).toContain(`<span class="method m-${method}">${method.toUpperCase()}</span>`);
      expect(textOf(html_)).toContain(path);
      expect(textOf(html_)).toContain(operation.summary);
    }
  });

  test("each operation shows its parameters, its body and every answer it declares", async () => {
    const { html } = await page();
    for (const [, , operation] of operations()) {
      const html_ = section(html, operation.operationId);
      for (const status of Object.keys(operation.responses)) expect(html_).toContain(`<span class="status s${status[0]}">${status}</span>`);
      for (const parameter of operation.parameters ?? []) {
        const name = parameter.name ?? parameter.$ref.split("/").at(-1);
        if (parameter.name !== undefined) expect(html_).toContain(`<code class="name">${name}</code>`);
      }
    }
    expect(section(html, "createPet")).toContain("<h4>Request body</h4>");
    expect(section(html, "createPet")).toContain('<code class="name">categoryId</code>');
  });

  test("each error answer names the error codes its description names", async () => {
    const { html } = await page();
    const createPet = section(html, "createPet");
    expect(createPet).toMatch(/<span class="status s4">400<\/span>[\s\S]*?<code class="code">invalid_body<\/code>[\s\S]*?<code class="code">invalid_header<\/code>/);
    expect(section(html, "getPet")).toMatch(/<span class="status s4">404<\/span>[\s\S]*?<code class="code">not_found<\/code>/);
    expect(html).toContain('id="errors"');
  });

  test("createPet shows the 403 a read-only key gets, insufficient_scope; no read shows one (issue 50)", async () => {
    const { html } = await page();
    expect(section(html, "createPet")).toMatch(/<span class="status s4">403<\/span>[\s\S]*?<code class="code">insufficient_scope<\/code>/);
    for (const read of ["listPets", "getPet"]) expect(section(html, read)).not.toContain('<span class="status s4">403</span>');
  });

  test("each error answer's body is the Error object with the code and status the answer pins", async () => {
    const { html } = await page();
    expect(section(html, "listPets")).toContain(
      'Body: <code>application/json</code> · <a href="#schema-Error">Error</a> · <code>code</code> always <code>unauthorized</code> · <code>status</code> always <code>401</code>',
    );
    expect(section(html, "getPet")).toContain("<code>code</code> one of always <code>invalid_path</code> | always <code>invalid_header</code> · <code>status</code> always <code>400</code>");
  });

  test("each operation has a curl example against the base URL the request reached, with the key from $API_KEY", async () => {
    const { html } = await page();
    expect(curlText(html, "listPets")).toBe(`curl -i 'http://pets.test/v1/pets' \\\n  -H "Authorization: Bearer $API_KEY"`);
    expect(curlText(html, "getPet")).toStartWith("curl -i 'http://pets.test/v1/pets/1'");
    expect(curlText(html, "createPet")).toContain(`-H 'Content-Type: application/json' \\\n  -d '{"name":`);
  });

  test("the base URL follows publicUrl and the base path", async () => {
    const { html } = await page({ publicUrl: "https://example.com/pets-api", basePath: "/api/v1" });
    expect(html).toContain('<code class="base" id="base-url">https://example.com/pets-api/api/v1</code>');
    expect(curlText(html, "listPets")).toStartWith("curl -i 'https://example.com/pets-api/api/v1/pets'");
    // "Try it" and links go to the page's own origin, relative to where the page is.
    expect(html).toContain('<body data-base-path="/api/v1">');
    expect(html).toContain('href="./api/v1/openapi.json"');
  });

  test("a base URL holding ' is quoted for the shell: run by sh, each curl example passes the URL as one argument and runs nothing else", async () => {
    const { html } = await page({ publicUrl: "https://example.com/x';id;'" });
    expect(curlArguments(curlText(html, "listPets"))).toEqual(["-i", "https://example.com/x';id;'/v1/pets", "-H", "Authorization: Bearer the-key"]);
    expect(curlArguments(curlText(html, "createPet"))).toEqual([
      "-i", "https://example.com/x';id;'/v1/pets", "-H", "Authorization: Bearer the-key", "-H", "Content-Type: application/json", "-d", expect.stringMatching(/^\{"name":/),
    ]);
    // The base URL shown as text is the URL itself, not its shell spelling.
    expect(html).toContain("https://example.com/x&#39;;id;&#39;/v1</code>");
  });

  test("each operation has a try-it form, hidden until the script runs; the key field is a password field outside every form", async () => {
    const { html } = await page();
    for (const [method, path, operation] of operations()) {
      expect(section(html, operation.operationId)).toContain(`<form class="try-form" data-method="${method.toUpperCase()}" data-path="${path}"`);
    }
    expect(html).toContain('<input id="api-key" type="password" autocomplete="off"');
    const keyAt = html.indexOf('id="api-key"');
    expect(html.lastIndexOf("<form", keyAt)).toBe(-1);
    expect(html).not.toMatch(/<form[^>]*\baction=/);
  });

  test("the script keeps the key in sessionStorage, never in a cookie, localStorage or a URL", async () => {
    const { html } = await page();
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
    expect(script).toContain("sessionStorage");
    expect(script).not.toContain("cookie");
    expect(script).not.toContain("localStorage");
  });

  test("its Content-Security-Policy allows only its own inline style and script, by hash, and requests to its own origin", async () => {
    const { response, html } = await page();
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
    expect(response.headers.get("content-security-policy")).toBe(
      `default-src 'none'; script-src '${sha256(script)}'; style-src '${sha256(style)}'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
  });

  test("it refers to no other origin: every src and href is a fragment, a relative path or inline data", async () => {
    const { html } = await page();
    const references = [...html.matchAll(/\s(?:src|href|action)="([^"]*)"/g)].map((match) => match[1]!);
    expect(references.length).toBeGreaterThan(5);
    expect(references.filter((reference) => !/^(#|\.\/|data:)/.test(reference))).toEqual([]);
    expect(html).not.toMatch(/<(?:img|iframe|link rel="stylesheet"|script src)/);
  });

  test("HEAD / answers the page's headers with no body; another method answers 405 with Allow: GET, HEAD, without a key", async () => {
    const app = pageApp();
    const head = await call(app, "/", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(10_000);
    expect(await head.text()).toBe("");
    const post = await call(app, "/", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await errorOf(post)).code).toBe("method_not_allowed");
  });

  test("answers never share headers: a header set on one answer is not on the next", async () => {
    const app = pageApp();
    const first = await call(app, "/");
    expect(first.status).toBe(200);
    first.headers.set("x-mine", "1");
    expect((await call(app, "/")).headers.get("x-mine")).toBeNull();
  });

  test("the API under the base path is unchanged: it still needs a key", async () => {
    const app = pageApp();
    expect((await call(app, "/v1/pets")).status).toBe(401);
    expect((await call(app, "/v1/pets", { headers: AUTH })).status).toBe(200);
  });
});

describe("the page renders whatever document it is given", () => {
  const document: Json = {
    openapi: "3.1.0",
    info: { title: "Tricky <API>", version: "0.1.0", description: "Says `<script>alert(1)</script>` & more" },
    paths: {
      "/things/{thingId}": {
        parameters: [{ $ref: "#/components/parameters/ThingId" }],
        put: {
          operationId: "putThing",
          summary: "Replace a thing's <parts>",
          security: [],
          requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Loop" } } } },
          responses: { "204": { description: "Done." }, default: { description: "Anything else." } },
        },
      },
    },
    components: {
      parameters: { ThingId: { name: "thingId", in: "path", required: true, schema: { type: "string", pattern: "^[a-z]+$" } } },
      schemas: { Loop: { type: "object", properties: { self: { $ref: "#/components/schemas/Loop" }, n: { type: "integer", minimum: 5 } } } },
    },
  };

  test("escapes its text, follows $refs (a cycle too), and takes path-level parameters and public operations", async () => {
    const render = createReferencePage("", document);
    const html = await (await render(new Request("http://x.test/"), "http://x.test")).text();
    expect(html).toContain("<title>Tricky &lt;API&gt; 0.1.0 · API reference</title>");
    expect(html).toContain("<code>&lt;script&gt;alert(1)&lt;/script&gt;</code> &amp; more");
    expect(html).not.toContain("<script>alert");
    const put = section(html, "putThing");
    expect(put).toContain('<code class="name">thingId</code> <span class="where">path</span> <span class="need">required</span>');
    expect(put).toContain("no key needed");
    expect(put).not.toContain("Authorization");
    expect(curlText(html, "putThing")).toStartWith("curl -i -X PUT 'http://x.test/things/example'");
    expect(put).toContain('<span class="status sx">default</span>');
    // A summary as the reader sees it, however it is escaped: an apostrophe is a character reference in the HTML.
    expect(put).toContain("Replace a thing&#39;s &lt;parts&gt;");
    expect(textOf(put)).toContain("Replace a thing's <parts>");
  });
});
