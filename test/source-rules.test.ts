import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";

const RUNTIME_APIS = /\b(Bun|Deno|process|Buffer|require)\b|from\s+["'](node:|bun:|npm:|jsr:)/;

test("src/ uses web standards only: no Bun, Deno, process, Buffer or runtime imports", () => {
  const offenders = readdirSync("src")
    .filter((file) => file.endsWith(".ts"))
    .flatMap((file) =>
      readFileSync(`src/${file}`, "utf8")
        .split("\n")
        .map((line, index) => ({ where: `src/${file}:${index + 1}`, line }))
        .filter(({ line }) => !/^\s*(\/\*\*|\*|\/\/)/.test(line) && RUNTIME_APIS.test(line)),
    );
  expect(offenders).toEqual([]);
});

test("every export in src/ and adapters/ has a doc comment", () => {
  const undocumented = ["src", "adapters"].flatMap((folder) =>
    readdirSync(folder)
      .filter((file) => file.endsWith(".ts"))
      .flatMap((file) => {
        const lines = readFileSync(`${folder}/${file}`, "utf8").split("\n");
        return lines
          .map((line, index) => ({ line, previous: lines[index - 1]?.trim() ?? "", where: `${folder}/${file}:${index + 1}` }))
          .filter(({ line }) => /^export (async function|function|const|type|interface|class) [A-Za-z]/.test(line))
          .filter(({ previous }) => !previous.endsWith("*/"))
          .map(({ where }) => where);
      }),
  );
  expect(undocumented).toEqual([]);
});
