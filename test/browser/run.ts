/**
 * @module
 * The service in a real browser: Debian's `chromium`, driven by `playwright-core` (which downloads
 * no browser), against the real standalone server on Bun. Run from the repository root with
 * `npm run test:browser`, which installs this folder's dependencies first; chromium must be at
 * /usr/bin/chromium (`.ci/run` installs it with apt-get). With `--screenshots` it also writes the
 * reference page's screenshots to docs/.
 *
 * A page on another loopback origin lists, creates and gets pets through the API with CORS on, and
 * one on an origin not listed is blocked; the reference page at `/` renders every operation of the
 * document the server serves, its "try it" creates a pet and shows the 201 (also from the keyboard
 * alone), it makes no request to another origin, and it fits a phone's width.
 * Ends with `browser: N passed, M failed`.
 */
import type { BrowserContext, ConsoleMessage, Page } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { ServerProcess } from "../server-process.ts";
import { createChecks } from "../checks.ts";
import { startServer } from "../server-process.ts";

const KEY = "browser-test-key";
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
/** The whole run's limit: a hung browser or server must not hang CI. */
const RUN_TIMEOUT_MS = 300_000;
const STEP_TIMEOUT_MS = 30_000;
const SCREENSHOTS = process.argv.includes("--screenshots");

const { check, fail, finish } = createChecks("browser");

/** Throws unless `actual` equals `expected` as JSON. */
function expectSame(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** Throws with `what` unless `condition` holds. */
function expectTrue(what: string, condition: boolean): void {
  if (!condition) throw new Error(what);
}

/** A static site on its own loopback origin, serving one page a front-end developer might write. */
function startPageServer(title: string): { origin: string; stop: () => void } {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1></body></html>`;
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  return { origin: `http://127.0.0.1:${server.port}`, stop: () => void server.stop(true) };
}

/** What a page's `fetch` saw: the status, the headers it could read, the body; or the error it threw. */
interface Seen {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  readonly error?: string;
}

/** Calls the API from inside the page, as the page's own script would: `fetch` with the key in `Authorization`. */
async function fetchFromPage(page: Page, url: string, init: { method?: string; body?: string } = {}): Promise<Seen> {
  return await page.evaluate(async ({ url, init, key }) => {
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (init.body !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(url, { ...init, headers });
      const text = await response.text();
      return { status: response.status, headers: Object.fromEntries(response.headers), body: text === "" ? null : JSON.parse(text) };
    } catch (error) {
      return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
  }, { url, init, key: KEY });
}

/** Pets as the server has them, read outside the browser. */
async function petsOnServer(api: string): Promise<unknown[]> {
  return (await (await fetch(`${api}/pets?limit=100`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as unknown[];
}

async function crossOriginChecks(context: BrowserContext, api: string, listed: string, unlisted: string): Promise<void> {
  const page = await context.newPage();
  await page.goto(`${listed}/`);
  let location = "";

  await check("a page on a listed origin lists pets through the API: 200 and a JSON array", async () => {
    const seen = await fetchFromPage(page, `${api}/pets`);
    expectSame("status", seen.status ?? seen.error, 200);
    expectTrue(`body is not an array: ${JSON.stringify(seen.body)}`, Array.isArray(seen.body));
  });

  await check("a page on a listed origin creates a pet (201) and reads its Location and X-Request-Id", async () => {
    const seen = await fetchFromPage(page, `${api}/pets`, { method: "POST", body: JSON.stringify({ name: "Rex", categoryId: 1, status: "available" }) });
    expectSame("status", seen.status ?? seen.error, 201);
    location = seen.headers?.location ?? "";
    expectTrue(`Location not readable: ${JSON.stringify(seen.headers)}`, /\/v1\/pets\/[1-9][0-9]*$/.test(location));
    expectTrue(`X-Request-Id not readable: ${JSON.stringify(seen.headers)}`, (seen.headers?.["x-request-id"] ?? "") !== "");
  });

  await check("a page on a listed origin gets the pet at that Location (200), with Deprecation and Sunset readable", async () => {
    const seen = await fetchFromPage(page, location);
    expectSame("status", seen.status ?? seen.error, 200);
    expectSame("pet", seen.body, { id: Number(location.split("/").at(-1)), name: "Rex", categoryId: 1, status: "available" });
    expectTrue(`Deprecation or Sunset not readable: ${JSON.stringify(seen.headers)}`, seen.headers?.deprecation !== undefined && seen.headers.sunset !== undefined);
  });

  await check("a page on a listed origin reads the error object of a 404", async () => {
    const seen = await fetchFromPage(page, `${api}/pets/999999`);
    expectSame("answer", [seen.status ?? seen.error, (seen.body as { code?: string } | null)?.code], [404, "not_found"]);
  });

  const blocked = await context.newPage();
  await blocked.goto(`${unlisted}/`);
  await check("a page on an origin not listed is blocked: its list and its create fail in the browser, and nothing is stored", async () => {
    const before = (await petsOnServer(api)).length;
    const list = await fetchFromPage(blocked, `${api}/pets`);
    const create = await fetchFromPage(blocked, `${api}/pets`, { method: "POST", body: JSON.stringify({ name: "Intruder", categoryId: 1 }) });
    expectSame("what the page saw", [list.error?.split(":")[0], create.error?.split(":")[0]], ["TypeError", "TypeError"]);
    expectSame("pets on the server", (await petsOnServer(api)).length, before);
  });
  await page.close();
  await blocked.close();
}

/** Opens the reference page, recording every request it makes and every console error. */
async function openReference(context: BrowserContext, server: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => void requests.push(request.url()));
  page.on("console", (message: ConsoleMessage) => void (message.type() === "error" && errors.push(message.text())));
  page.on("pageerror", (error) => void errors.push(error.message));
  await page.goto(`${server}/`);
  return { page, requests, errors };
}

async function referencePageChecks(context: BrowserContext, api: string): Promise<void> {
  const server = new URL(api).origin;
  const { page, requests, errors } = await openReference(context, server);

  await check("the reference page renders every operation of the document the server serves", async () => {
    const document = (await (await fetch(`${api}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    // A path item holds its operations by method, beside fields of its own (its `parameters`).
    const methods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
    const expected = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).filter(([method]) => methods.has(method)).map(([method, operation]) => ({ id: operation.operationId, title: `${method.toUpperCase()} ${path}` })));
    expectTrue("the document has no operations", expected.length > 0);
    for (const { id, title } of expected) {
      const heading = page.locator(`#op-${id} h3`);
      expectTrue(`#op-${id} is not visible`, await heading.isVisible());
      expectSame(`heading of ${id}`, (await heading.innerText()).replace(/\s+/g, " ").replace(" Deprecated", "").trim(), title);
    }
  });

  await check("its style and script run under its Content-Security-Policy, with no console error", async () => {
    const styled = await page.evaluate(() => getComputedStyle(document.querySelector(".op")!).borderRadius);
    expectSame("an operation's border radius (from the inline style)", styled, "12px");
    expectSame("try-it sections shown by the inline script", await page.locator(".try[hidden]").count(), 0);
    expectSame("console errors", errors, []);
  });

  await check("its try it creates a pet with the key typed in, and shows the 201", async () => {
    await page.fill("#api-key", KEY);
    await page.click("#op-createPet summary");
    await page.fill("#op-createPet textarea", JSON.stringify({ name: "Tried", categoryId: 7 }));
    await page.click("#op-createPet button[type=submit]");
    await page.locator("#op-createPet .result .status").waitFor();
    expectSame("status shown", await page.locator("#op-createPet .result .status").innerText(), "201");
    expectTrue("the created pet is shown", (await page.locator("#op-createPet .result").innerText()).includes('"name": "Tried"'));
    expectTrue("the pet is on the server", (await petsOnServer(api)).some((pet) => (pet as { name: string }).name === "Tried"));
  });

  await check("the key stays in the tab's sessionStorage: never in its URL, a cookie or a request's URL", async () => {
    const kept = await page.evaluate(() => ({ url: location.href, cookie: document.cookie, stored: Object.values(sessionStorage), local: localStorage.length }));
    expectSame("where the key is", kept, { url: `${server}/`, cookie: "", stored: [KEY], local: 0 });
    expectSame("request URLs holding the key", requests.filter((url) => url.includes(KEY)), []);
  });

  await check("the reference page makes no request to another origin", async () => {
    const network = requests.filter((url) => !url.startsWith("data:"));
    expectTrue("no request was recorded", network.length >= 2);
    expectSame("requests to another origin", network.filter((url) => new URL(url).origin !== server), []);
  });

  await check("its try it works from the keyboard alone: Tab to an operation, Enter to open it, type, Enter to send", async () => {
    await page.reload();
    let tabs = 0;
    for (; tabs < 80; tabs++) {
      await page.keyboard.press("Tab");
      if (await page.evaluate(() => document.activeElement?.matches("#op-listPets summary") ?? false)) break;
    }
    expectTrue("Tab never reached listPets' try it", tabs < 80);
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    expectSame("focused field", await page.evaluate(() => document.activeElement?.id), "op-listPets-query-limit");
    await page.keyboard.type("1");
    await page.keyboard.press("Enter");
    await page.locator("#op-listPets .result .status").waitFor();
    expectSame("status shown", await page.locator("#op-listPets .result .status").innerText(), "200");
  });

  await check("at a phone's width (390 px) the page fits: nothing scrolls sideways", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    expectTrue("the reference page is not shown", (await page.locator(".op").count()) > 0);
    const widths = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    expectSame("scroll width, client width", widths, [390, 390]);
  });
  await page.close();
}

/**
 * Writes the page to docs/: its top at a desktop's width, and at a phone's width its "try it"
 * having created a pet.
 */
async function takeScreenshots(context: BrowserContext): Promise<void> {
  // PUBLIC_URL makes the base URL read as the quick start's, whatever port this server got.
  const server = await startServer("bun", { STORE: "memory", API_KEYS: KEY, PUBLIC_URL: "http://127.0.0.1:8080" });
  try {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${new URL(server.url).origin}/`);
    await page.screenshot({ path: join("docs", "reference-page-desktop.png") });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.fill("#api-key", KEY);
    await page.click("#op-createPet summary");
    await page.fill("#op-createPet textarea", JSON.stringify({ name: "Luna", categoryId: 2, status: "available" }, null, 2));
    await page.click("#op-createPet button[type=submit]");
    await page.locator("#op-createPet .result .status").waitFor();
    await page.evaluate(() => document.querySelector("#op-createPet .try-actions")!.scrollIntoView({ block: "start" }));
    await page.screenshot({ path: join("docs", "reference-page-phone.png") });
    await page.close();
    console.log("wrote docs/reference-page-desktop.png and docs/reference-page-phone.png");
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const listed = startPageServer("Pet client");
  const unlisted = startPageServer("Somebody else's page");
  const profile = mkdtempSync(join(tmpdir(), "animal-store-chromium-"));
  let server: ServerProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    server = await startServer("bun", { STORE: "memory", API_KEYS: KEY, CORS_ORIGINS: listed.origin });
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
    context.setDefaultTimeout(STEP_TIMEOUT_MS);
    await crossOriginChecks(context, server.url, listed.origin, unlisted.origin);
    await referencePageChecks(context, server.url);
    if (SCREENSHOTS) await takeScreenshots(context);
  } catch (error) {
    fail("the browser checks could not run", error);
  } finally {
    await context?.close();
    await server?.stop();
    listed.stop();
    unlisted.stop();
    rmSync(profile, { recursive: true, force: true });
  }
}

const deadline = setTimeout(() => {
  fail(`the browser checks did not finish within ${RUN_TIMEOUT_MS / 1000} s`);
  finish();
  process.exit(1);
}, RUN_TIMEOUT_MS);
await main();
clearTimeout(deadline);
finish();
process.exit(process.exitCode);
