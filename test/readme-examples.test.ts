import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";

/** The README's code blocks that stand for a file, each marked `<!-- example: path -->`. */
const examples = [...readFileSync("README.md", "utf8").matchAll(/<!-- example: (\S+) -->\n```(?:ts|js)\n([\s\S]*?)\n```/g)].map((match) => ({
  path: match[1]!,
  code: match[2]!,
}));

test("every library example in the README is, verbatim, a file the packaging checks run", () => {
  for (const { path, code } of examples) expect({ path, code }).toEqual({ path, code: readFileSync(path, "utf8").trimEnd() });
});

test("the README shows every example the packaging checks run, one per host", () => {
  const shown = examples.map((example) => example.path);
  const files = readdirSync("packaging/examples").map((file) => `packaging/examples/${file}`);
  expect(shown.filter((path) => path.startsWith("packaging/examples/")).sort()).toEqual(files.sort());
  expect(files.map((file) => file.replace(/^.*\//, "")).sort()).toEqual(["bun.ts", "deno.ts", "express.js", "fastify.js", "hono.ts", "node-http.js", "node.js", "worker.js"]);
});

test("the README links to no file outside the repository", () => {
  // A Markdown link or a path that climbs out of the repository; request paths such as /v1/x/../pets are fine.
  expect(readFileSync("README.md", "utf8").match(/\]\(\.\.\/[^)]*\)|(?<![\w/])\.\.\/[\w.-]+\/[\w./-]+/g)).toBeNull();
});
