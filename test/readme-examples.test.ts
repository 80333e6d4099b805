import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The README and the pages under `docs/` it leads to. */
const PAGES = ["README.md", ...readdirSync("docs").filter((file) => file.endsWith(".md")).map((file) => `docs/${file}`)];

/** The code blocks of the README and its pages that stand for a file, each marked `<!-- example: path -->`. */
const examples = PAGES.flatMap((page) =>
  [...readFileSync(page, "utf8").matchAll(/<!-- example: (\S+) -->\n```(?:ts|js)\n([\s\S]*?)\n```/g)].map((match) => ({
    page,
    path: match[1]!,
    code: match[2]!,
  }))
);

test("every library example in the README and its pages is, verbatim, a file the packaging checks run", () => {
  expect(examples.length).toBeGreaterThan(0);
  for (const { path, code } of examples) expect({ path, code }).toEqual({ path, code: readFileSync(path, "utf8").trimEnd() });
});

test("the pages show every example the packaging checks run, one per host, in docs/library.md", () => {
  const shown = examples.filter((example) => example.page === "docs/library.md").map((example) => example.path);
  const files = readdirSync("packaging/examples").map((file) => `packaging/examples/${file}`);
  expect(shown.filter((path) => path.startsWith("packaging/examples/")).sort()).toEqual(files.sort());
  expect(files.map((file) => file.replace(/^.*\//, "")).sort()).toEqual([
    "bun.ts", "deno.ts", "elysia-all.ts", "elysia.ts", "express.js", "fastify.js", "h3.js", "hono.ts", "koa-router.js", "koa.js", "node-http.js", "node.js", "worker.js",
  ]);
});

/** The Next.js app's own files, which its recipe shows (the app's configuration is not part of it). */
const NEXT_APP = ["packaging/next/app/health/route.js", "packaging/next/app/pets-api/v1/[...path]/route.js", "packaging/next/proxy.js"];

test("docs/library.md shows the Next.js app the packaging checks build, file by file", () => {
  const app = readdirSync("packaging/next", { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".js") && !file.startsWith("node_modules/") && !file.startsWith(".next/") && file !== "next.config.js")
    .map((file) => `packaging/next/${file}`);
  expect(app.sort()).toEqual(NEXT_APP);
  const shown = examples.filter((example) => example.page === "docs/library.md").map((example) => example.path);
  expect(shown.filter((path) => path.startsWith("packaging/next/")).sort()).toEqual(NEXT_APP);
});

test.each([
  ["the README's embedding example", "README.md", "packaging/consumer/embed.ts"],
  ["the library page's key ring example (issue 50)", "docs/library.md", "packaging/consumer/key-ring.ts"],
])("%s prints what its last comment says", (_, page, path) => {
  const embedding = examples.find((example) => example.page === page && example.path === path);
  expect(embedding).toBeDefined();
  const said = /\/\/ (.*)$/.exec(embedding!.code)![1]!;
  // The package's name resolves to its own entry point, as it does for an installed package.
  const folder = mkdtempSync(join(tmpdir(), "animal-store-embed-"));
  try {
    const file = join(folder, path.split("/").pop()!);
    writeFileSync(file, embedding!.code.replace('from "animal-store"', `from ${JSON.stringify(resolve("src/mod.ts"))}`));
    const run = Bun.spawnSync([process.execPath, file], { stdout: "pipe", stderr: "pipe", timeout: 20_000 });
    expect({ out: run.stdout.toString().trim(), err: run.stderr.toString() }).toEqual({ out: said, err: "" });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("the README and its pages link to no file outside the repository", () => {
  // A Markdown link or a path that climbs out of the repository, read from the page's own folder;
  // request paths such as /v1/x/../pets are fine.
  const root = resolve(".");
  for (const page of PAGES) {
    const climbing = readFileSync(page, "utf8").match(/\]\((?:\.\.\/)+[^)]*\)|(?<![\w/])(?:\.\.\/)+[\w.-]+\/[\w./-]+/g) ?? [];
    const outside = climbing
      .map((found) => found.replace(/^\]\(|\)$/g, ""))
      .filter((path) => !resolve(page, "..", path).startsWith(`${root}/`));
    expect({ page, outside }).toEqual({ page, outside: [] });
  }
});
