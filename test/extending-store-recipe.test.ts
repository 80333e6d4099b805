/**
 * @module
 * docs/extending.md's store recipe, held to the code: every file it names that is not new exists,
 * and every table it names in capitals (`SERVER_STORES`, `STORE_NAMES`, `FRESH_STORES`; not the
 * example's own `SQLITE_FILE`) is in the file of its row, so the recipe's list fails here when what
 * it lists moves.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";

const section = readFileSync("docs/extending.md", "utf8").split("## A store selected by a setting")[1]?.split("\n## ")[0] ?? "";
/** The recipe's table rows, as [file cell, what cell, test cell]. */
const rows = section.split("\n").filter((line) => /^\| \d+ \|/.test(line)).map((line) => line.split(" | ").slice(1).map((cell) => cell.replace(/ \|$/, "")));
const paths = (cell: string) => [...cell.matchAll(/`((?:test|adapters|src|docs)\/[\w./-]+|[\w-]+\.(?:json|md))`/g)].map((match) => match[1]!);

test("the store recipe has its table", () => {
  expect(rows.length).toBeGreaterThanOrEqual(10);
});

test("every file the store recipe lists that is not new exists, and so does every test it names", () => {
  const made = rows.flatMap(([file = ""]) => (file.includes("(new)") ? paths(file) : []));
  const named = rows.flatMap(([file = "", , fails = ""]) => [...(file.includes("(new)") ? [] : paths(file)), ...paths(fails)]).filter((path) => !made.includes(path));
  const resolved = named.map((path) => (path.includes("/") ? path : existsSync(path) ? path : `docs/${path}`));
  expect(resolved.filter((path) => !existsSync(path))).toEqual([]);
  expect(resolved.length).toBeGreaterThan(10);
});

test("every table the store recipe names in capitals is in the file of its row (the example's own new names aside)", () => {
  const missing = rows.flatMap(([file = "", what = ""]) => {
    const [path] = paths(file);
    if (path === undefined || file.includes("(new)")) return [];
    const text = readFileSync(path, "utf8");
    const names = [...what.matchAll(/`([A-Z][A-Z_]+)[.`]/g)].map((match) => match[1]!).filter((name) => !name.includes("SQLITE"));
    return names.filter((name) => !text.includes(name)).map((name) => `${path}: ${name}`);
  });
  expect(missing).toEqual([]);
});
