import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** The README and the pages under `docs/` it leads to. */
const PAGES = ["README.md", ...readdirSync("docs").filter((file) => file.endsWith(".md")).map((file) => `docs/${file}`)];
const README = readFileSync("README.md", "utf8");
const FIRST_40 = README.split("\n").slice(0, 40).join("\n");

/** A page's text outside fenced code blocks, where a `# 201` or a `# comment` is no heading. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```$/gm, "");
}

/** The anchors GitHub gives a page's headings: lowercase, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** The relative targets a page links to: Markdown links and `src` of images. */
function relativeLinks(text: string): string[] {
  const body = prose(text);
  const targets = [...body.matchAll(/\]\(([^)\s]+)\)/g), ...body.matchAll(/\bsrc="([^"]+)"/g)].map((match) => match[1]!);
  return targets.filter((target) => !/^[a-z]+:/.test(target));
}

describe("the README is a front door", () => {
  test("it is at most 250 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(250);
  });

  test("its first 40 lines open the three doors: run it, embed it, learn from it", () => {
    const doors = ["## Run it", "## Embed it", "## Learn from it"].map((door) => FIRST_40.indexOf(`\n${door}\n`));
    expect(doors.every((at) => at > 0)).toBe(true);
    expect([...doors].sort((a, b) => a - b)).toEqual(doors);
    const [run, embed, learn] = [FIRST_40.slice(doors[0], doors[1]), FIRST_40.slice(doors[1], doors[2]), FIRST_40.slice(doors[2])];
    for (const command of ["npm install && npm start", "npm run start:deno", "npm run start:node", "npm install && npm test", "listening on http://127.0.0.1:8080/v1"]) {
      expect({ command, shown: run.includes(command) }).toEqual({ command, shown: true });
    }
    expect(embed).toContain("<!-- example: packaging/consumer/embed.ts -->");
    expect(embed).toMatch(/createApp\(\{ store: createMemoryStore\(\), apiKeys: \[/);
    expect(embed).toContain("app.fetch(new Request(");
    expect(embed.match(/```ts\n([\s\S]*?)\n```/)![1]!.split("\n").length).toBeLessThanOrEqual(8);
    expect(learn).toMatch(/1\. An adapter[\s\S]*2\. \[`src\/app\.ts`\]/);
  });

  test("its reading order follows a request through the code, file by file, and names the two seams", () => {
    const learn = README.slice(README.indexOf("## Learn from it"), README.indexOf("\n## ", README.indexOf("## Learn from it")));
    const order = ["adapters/", "src/app.ts", "src/routes.ts", "src/operation.ts", "src/context.ts", "src/operations/list-pets.ts", "src/read-body.ts", "src/store.ts", "src/memory-store.ts", "src/errors.ts"];
    const at = order.map((file) => learn.indexOf(file));
    expect(at.every((position) => position > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(learn).toContain("**The store interface**");
    expect(learn).toContain("**Plugs**");
    expect(learn).toContain("`Plug` in `src/types.ts`");
    expect(learn).toContain("**Wraps**");
    expect(learn).toContain("`Wrap` in `src/types.ts`");
  });

  test("its error object is what the app answers a create with an empty name", async () => {
    const { createApp, createMemoryStore } = await import("../src/mod.ts");
    const shown = /```json\n(.*)\n```/.exec(README)![1]!;
    const app = createApp({ store: createMemoryStore(), apiKeys: ["k"] });
    const answer = await app.fetch(new Request("http://localhost/v1/pets", {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: '{"name":"","categoryId":1}',
    }));
    expect(await answer.text()).toBe(shown);
  });

  test("it links to every page under docs/", () => {
    const linked = relativeLinks(README).map((target) => target.replace(/#.*$/, ""));
    for (const page of PAGES.slice(1)) expect({ page, linked: linked.includes(page) }).toEqual({ page, linked: true });
  });
});

test("every relative link in the README and docs/ names a file that exists, and a heading that exists in it", () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    const text = readFileSync(page, "utf8");
    for (const target of relativeLinks(text)) {
      const [path = "", anchor] = target.split("#");
      const file = path === "" ? page : normalize(join(dirname(page), decodeURIComponent(path)));
      if (!existsSync(file)) broken.push(`${page}: ${target} (no file ${file})`);
      else if (anchor !== undefined && !(file.endsWith(".md") && anchors(readFileSync(file, "utf8")).has(anchor))) {
        broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
  }
  expect(broken).toEqual([]);
});

test("docs/architecture.md has a row for every source file under src/ and adapters/, and none for a file that is gone", () => {
  const page = readFileSync("docs/architecture.md", "utf8");
  const rows = [...page.matchAll(/^\| `((?:src|adapters)\/[^`]+\.ts)` \|/gm)].map((match) => match[1]!).sort();
  const files = ["src", "adapters"].flatMap((folder) =>
    readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts")).map((file) => `${folder}/${file}`)).sort();
  expect(rows).toEqual(files);
});

describe("the README's deploy commands", () => {
  /** The command lines of a page's `sh` blocks, each without its trailing comment. */
  const commands = (text: string) =>
    [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((match) => match[1]!.split("\n")).map((line) => line.replace(/\s+#.*$/, "")).filter((line) => line !== "");

  test("each line of \"Deploy it\" is printed in docs/deploy.md, whose Docker and podman sections the deploy test runs as printed", () => {
    const section = README.slice(README.indexOf("## Deploy it"), README.indexOf("\n## ", README.indexOf("## Deploy it")));
    const page = new Set(commands(readFileSync("docs/deploy.md", "utf8")));
    const lines = commands(section);
    expect(lines.length).toBeGreaterThan(4);
    expect(lines.filter((line) => !page.has(line))).toEqual([]);
  });
});

test("the commands in the comments of deploy/Containerfile and deploy/compose.yaml are docs/deploy.md's, which the deploy test runs", () => {
  const page = readFileSync("docs/deploy.md", "utf8").split("\n").map((line) => line.replace(/\s+#.*$/, ""));
  const commented = ["deploy/Containerfile", "deploy/compose.yaml"].flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^# {3}(\S.*?)(?:[ \t]+#.*)?$/gm)].map((match) => match[1]!));
  expect(commented.length).toBeGreaterThan(4);
  expect(commented.filter((command) => !page.includes(command))).toEqual([]);
});
