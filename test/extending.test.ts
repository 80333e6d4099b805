/**
 * The recipes of docs/extending.md, held to the tree: every file a recipe lists exists (a new one
 * does not yet), every test it names is where it says with the name it quotes, and each recipe's
 * count of files is the number it lists. A file or test that moves fails here until its recipe
 * follows.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";

const PAGE = readFileSync("docs/extending.md", "utf8");

/** Every source file of the tree as one text, to tell a name it has from one a recipe makes. */
const TREE = ["src", "adapters", "test"].flatMap((folder) => readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts")).map((file) => readFileSync(`${folder}/${file}`, "utf8"))).join("\n");

/** Each recipe: its heading, and its table rows as their "File", "What" and "Fails until" cells. */
const recipes = PAGE.split(/^## /m).slice(1).map((section) => ({
  title: section.split("\n")[0]!,
  text: section,
  rows: [...section.matchAll(/^\| \d+ \| (.+?) \| (.+) \| (.+?) \|$/gm)].map((match) => ({ file: match[1]!, what: match[2]!, fails: match[3]! })),
})).filter((recipe) => recipe.rows.length > 0);

/** The paths a cell names, each with whether it is marked `(new)`; placeholders such as `<name>` aside. */
function pathsIn(cell: string): { path: string; isNew: boolean }[] {
  return [...cell.matchAll(/`([\w./-]+\.(?:ts|md|json))`( \(new\))?/g)].map((match) => ({ path: match[1]!, isNew: match[2] !== undefined }));
}

describe.each(recipes.map((recipe) => [recipe.title, recipe] as const))("the recipe %s", (_, recipe) => {
  const files = recipe.rows.flatMap((row) => pathsIn(row.file));

  test("lists files that exist, and new files that do not yet", () => {
    expect(files.length).toBeGreaterThan(3);
    for (const { path, isNew } of files) expect({ path, exists: existsSync(path) }).toEqual({ path, exists: !isNew });
  });

  test("names tests that exist, with the names it quotes", () => {
    const isNew = new Set(files.filter((file) => file.isNew).map((file) => file.path));
    for (const row of recipe.rows) {
      for (const match of row.fails.matchAll(/`(test\/[\w./-]+\.ts)`((?:,? "[^"]+")*)/g)) {
        const [, path, quoted = ""] = match;
        if (isNew.has(path!)) continue;
        expect({ path, exists: existsSync(path!) }).toEqual({ path, exists: true });
        const text = readFileSync(path!, "utf8");
        for (const [, name] of quoted.matchAll(/"([^"]+)"/g)) {
          const words = name!.replace(/…$/, "").replace(/: …$/, "");
          expect({ path, name: words, found: text.includes(words) }).toEqual({ path, name: words, found: true });
        }
      }
    }
  });

  test("finds each table it names in capitals (`SERVER_STORES`) in the file of its row, once the tree has it", () => {
    const missing = recipe.rows.flatMap((row) => {
      const [file] = pathsIn(row.file);
      if (file === undefined || file.isNew) return [];
      const text = readFileSync(file.path, "utf8");
      // A name the tree has nowhere is one the recipe makes (its new setting); one it has must be where the row says.
      const named = [...row.what.matchAll(/`([A-Z][A-Z_]{2,})[.`]/g)].map((match) => match[1]!).filter((name) => TREE.includes(name));
      return named.filter((name) => !text.includes(name)).map((name) => `${file.path}: ${name}`);
    });
    expect(missing).toEqual([]);
  });

  test("counts the files it lists", () => {
    const listed = Number(/Files listed: (\d+)/.exec(recipe.text)?.[1]);
    expect(listed).toBe(new Set(files.map((file) => file.path)).size);
  });
});

test("every recipe of the page has a table to hold", () => {
  expect(recipes.map((recipe) => recipe.title)).toEqual([
    "An operation: `DELETE /v1/pets/{petId}`",
    "An operation that changes a pet: `PATCH /v1/pets/{petId}` of `status`",
    "A plug: a maintenance mode",
    "An answer feature with a server setting: `Server-Timing`",
    "A store selected by a setting: `STORE=sqlite`",
  ]);
});
