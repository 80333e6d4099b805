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
 * alone), it makes no request to another origin; at a desktop's and a phone's size its first screen
 * holds the base URL, the key field and the main operations, it is a few screens long and nothing
 * is wider than the screen; a typed key fills in the curl examples (as a shell word, which `sh`
 * reads back) and their copy buttons, and never reaches localStorage.
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
/** The sizes the page is checked at: a desktop's and a phone's. */
const SCREENS = [{ width: 1280, height: 800 }, { width: 390, height: 844 }] as const;
/** "A few screens": the page was 55 (desktop) and 116 (phone) screens long before issue 36. */
const MAX_SCREENS = 6;
/** The main operations the first screen lists, in the document's order. */
const MAIN_OPERATIONS = ["#op-listPets", "#op-createPet", "#op-getPet"];

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
    await page.click("#op-createPet .try summary");
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

  await check("its try it works from the keyboard alone: listPets' is open, Tab to its field, type, Enter to send; Enter opens createPet's", async () => {
    await page.reload();
    expectTrue("Tab never reached listPets' limit field", await tabTo(page, "#op-listPets-query-limit", 60));
    await page.keyboard.type("1");
    await page.keyboard.press("Enter");
    await page.locator("#op-listPets .result .status").waitFor();
    expectSame("status shown", await page.locator("#op-listPets .result .status").innerText(), "200");
    expectTrue("Tab never reached createPet's try it", await tabTo(page, "#op-createPet .try summary", 60));
    await page.keyboard.press("Enter");
    expectSame("createPet's try it open", await page.locator("#op-createPet .try").evaluate((element) => (element as HTMLDetailsElement).open), true);
  });
  await page.close();

  for (const screen of SCREENS) await screenChecks(context, server, screen);
  await typedKeyChecks(context, api);
}

/** Presses Tab until `selector` has the focus, at most `limit` times; whether it got there. */
async function tabTo(page: Page, selector: string, limit: number): Promise<boolean> {
  for (let tabs = 0; tabs < limit; tabs++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) ?? false, selector)) return true;
  }
  return false;
}

/** What a fresh reader sees at one size: the first screen, the length, the width (after "try it" showed an answer). */
async function screenChecks(context: BrowserContext, server: string, screen: { width: number; height: number }): Promise<void> {
  const size = `${screen.width}×${screen.height}`;
  const page = await context.newPage();
  await page.setViewportSize(screen);
  await page.goto(`${server}/`);

  await check(`at ${size} the first screen holds the base URL, the key field and the main operations; listPets' try it is open`, async () => {
    const outside = await page.evaluate((selectors) => selectors.filter((selector) => {
      const box = document.querySelector(selector)?.getBoundingClientRect();
      return box === undefined || box.height === 0 || box.top < 0 || box.bottom > innerHeight;
    }), ["#base-url", "#api-key", ...MAIN_OPERATIONS.map((anchor) => `.quick a[href="${anchor}"]`)]);
    expectSame("below the first screen or missing", outside, []);
    expectSame("the first screen's operations", await page.locator(".quick a").evaluateAll((links) => links.map((link) => link.getAttribute("href"))), MAIN_OPERATIONS);
    expectSame("try it open", await page.locator(".try").evaluateAll((all) => all.filter((element) => (element as HTMLDetailsElement).open).map((element) => element.closest("[id^=op-]")?.id)), ["op-listPets"]);
  });

  await check(`at ${size} the page is at most ${MAX_SCREENS} screens long`, async () => {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    console.log(`  reference page at ${size}: ${height} px, ${(height / screen.height).toFixed(1)} screens`);
    expectTrue(`${height} px is ${(height / screen.height).toFixed(1)} screens`, height <= MAX_SCREENS * screen.height);
  });

  await check(`at ${size} nothing is wider than the screen, a try it's answer and its headers included: they wrap`, async () => {
    await page.fill("#api-key", KEY);
    await page.click("#op-listPets button[type=submit]");
    await page.locator("#op-listPets .result .result-headers").waitFor();
    const wide = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const name = (element: Element) => element.tagName.toLowerCase() + (element.id === "" ? "" : `#${element.id}`) + (element.className === "" ? "" : `.${String(element.className).split(" ")[0]}`);
      return {
        page: document.documentElement.scrollWidth - width,
        past: [...document.querySelectorAll("body *")].filter((element) => element.getBoundingClientRect().right > width + 0.5).map(name),
        clipped: [...document.querySelectorAll("pre, code, .result")].filter((element) => element.scrollWidth > element.clientWidth + 0.5).map(name),
      };
    });
    expectSame("wider than the screen (page overflow in px, elements past its right edge, boxes hiding text)", wide, { page: 0, past: [], clipped: [] });
  });
  await page.close();
}

/** The arguments `sh` passes to curl when it runs `command` (curl replaced by a function printing them). */
function curlArguments(command: string): string[] {
  const run = Bun.spawnSync(["sh", "-c", `curl() { printf '%s\\n' "$@"; }\n${command}`], { env: { PATH: "/usr/bin:/bin", API_KEY: "from-the-environment" } });
  return run.stdout.toString().split("\n").slice(0, -1);
}

async function typedKeyChecks(context: BrowserContext, api: string): Promise<void> {
  const server = new URL(api).origin;
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server });
  const page = await context.newPage();
  await page.goto(`${server}/`);
  // A key a shell would misread unquoted: a quote, a semicolon, a dollar.
  const typed = "it's;id $HOME";
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  await check("typing a key writes it into every curl example as one shell word, as it is typed", async () => {
    const count = await page.locator(".key-arg").count();
    expectTrue("no curl example carries a key", count >= 3);
    await page.locator("#api-key").pressSequentially(typed);
    expectSame("the examples' key arguments", [...new Set(await page.locator(".key-arg").allTextContents())], [`'Authorization: Bearer it'\\''s;id $HOME'`]);
  });

  await check("the copy button copies the curl example with the typed key, and sh reads it back as one argument", async () => {
    await page.click('#op-listPets button.copy');
    const copied = await clipboard();
    expectSame("copied", copied, await page.locator("#op-listPets-curl").textContent());
    expectSame("the arguments sh gives curl", curlArguments(copied), ["-i", `${api}/pets`, "-H", `Authorization: Bearer ${typed}`]);
    expectSame("what the page says", await page.locator("#copy-status").textContent(), "Copied to the clipboard");
  });

  await check("the base URL's copy button copies the base URL", async () => {
    await page.click('#base-url + button.copy');
    expectSame("copied", await clipboard(), api);
  });

  await check("Forget puts $API_KEY back in the examples; the key was never in localStorage, and is not in sessionStorage after", async () => {
    await page.click("#forget-key");
    expectSame("the examples' key arguments", [...new Set(await page.locator(".key-arg").allTextContents())], ['"Authorization: Bearer $API_KEY"']);
    expectSame("the arguments sh gives curl", curlArguments(await page.locator("#op-listPets-curl").textContent() ?? ""), ["-i", `${api}/pets`, "-H", "Authorization: Bearer from-the-environment"]);
    expectSame("storage", await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length })), { local: 0, session: 0 });
  });
  await page.close();
}

/**
 * Writes the page to docs/: its first screen at a desktop's size, and at a phone's size listPets'
 * section, with the typed key in its curl example and its "try it" answered.
 */
async function takeScreenshots(context: BrowserContext): Promise<void> {
  // PUBLIC_URL makes the base URL read as the quick start's, whatever port this server got.
  const server = await startServer("bun", { STORE: "memory", API_KEYS: KEY, PUBLIC_URL: "http://127.0.0.1:8080" });
  try {
    await fetch(`${server.url}/pets`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Luna", categoryId: 2, status: "available" }),
    });
    const page = await context.newPage();
    await page.setViewportSize(SCREENS[0]);
    await page.goto(`${new URL(server.url).origin}/`);
    await page.screenshot({ path: join("docs", "reference-page-desktop.png") });
    await page.setViewportSize(SCREENS[1]);
    await page.fill("#api-key", KEY);
    await page.fill("#op-listPets-query-limit", "1");
    await page.click("#op-listPets button[type=submit]");
    await page.locator("#op-listPets .result .status").waitFor();
    await page.locator("#op-listPets").screenshot({ path: join("docs", "reference-page-phone.png") });
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
