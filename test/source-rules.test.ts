import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { REQUEST_MEMBERS, RESPONSE_MEMBERS } from "../src/_internal/_fetch-contract.ts";

/** Every `.ts` file under a folder, subfolders included, with its lines. */
function sources(folder: string): { file: string; lines: string[] }[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => ({ file: `${folder}/${file}`, lines: readFileSync(`${folder}/${file}`, "utf8").split("\n") }));
}

/** The lines of `folder`'s sources that match `rule`, outside comments, as `file:line`. */
function offending(folder: string, rule: RegExp): string[] {
  return sources(folder).flatMap(({ file, lines }) =>
    lines
      .map((line, index) => ({ where: `${file}:${index + 1}`, line }))
      .filter(({ line }) => !/^\s*(\/\*\*|\*|\/\/)/.test(line) && rule.test(line))
      .map(({ where }) => where));
}

const RUNTIME_APIS = /\b(Bun|Deno|process|Buffer|require)\b|from\s+["'](node:|bun:|npm:|jsr:)/;

// State at the top of a module is shared by every app and store in the process: a `let` or `var`,
// a collection, or an instance made by a `create…` factory (a cache, a counter).
const TOP_LEVEL_STATE = /^(export\s+)?(let|var)\s|^(export\s+)?const\s+\w+(\s*:[^=]+)?\s*=\s*(new\s+(Map|Set|WeakMap|WeakSet|Array)\b|create\w*[<(])/;

test("src/ uses web standards only: no Bun, Deno, process, Buffer or runtime imports", () => {
  expect(offending("src", RUNTIME_APIS)).toEqual([]);
});

test("src/ keeps no module-level mutable state: no top-level let, var, collection or created instance", () => {
  expect(offending("src", TOP_LEVEL_STATE)).toEqual([]);
});

test("every export in src/ and adapters/ has a doc comment", () => {
  const undocumented = ["src", "adapters"].flatMap((folder) =>
    sources(folder).flatMap(({ file, lines }) =>
      lines
        .map((line, index) => ({ line, previous: lines[index - 1]?.trim() ?? "", where: `${file}:${index + 1}` }))
        .filter(({ line }) => /^export (async function|function|const|type|interface|class) [A-Za-z]/.test(line))
        .filter(({ previous }) => !previous.endsWith("*/"))
        .map(({ where }) => where)));
  expect(undocumented).toEqual([]);
});

/** The members read of `name` in `src/`, as `name.member` or `name.member.member`, outside comments. */
function membersRead(name: string): Set<string> {
  const read = new Set<string>();
  for (const { lines } of sources("src")) {
    for (const line of lines) {
      if (/^\s*(\/\*\*|\*|\/\/)/.test(line)) continue;
      for (const match of line.matchAll(new RegExp(`(?<![\\w$.-])${name}\\??\\.(\\w+)(?:\\??\\.(get|has|set|append|delete|forEach|entries|keys|values|getSetCookie))?`, "g"))) {
        read.add(match[2] === undefined ? match[1]! : `${match[1]}.${match[2]}`);
      }
    }
  }
  return read;
}

test("src/ reads only the request members the stand-ins promise (src/_internal/_fetch-contract.ts)", () => {
  expect([...membersRead("request")].filter((member) => !REQUEST_MEMBERS.includes(member))).toEqual([]);
});

test("src/ reads only the response members the stand-ins promise (src/_internal/_fetch-contract.ts)", () => {
  expect([...membersRead("response")].filter((member) => !RESPONSE_MEMBERS.includes(member))).toEqual([]);
});

/** Every relative import of every `.ts` file under `src/`, as paths from the repository root. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const { file, lines } of sources("src")) {
    const targets = lines
      .filter((line) => !/^\s*(\/\*\*|\*|\/\/)/.test(line))
      .flatMap((line) => [...line.matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)].map((match) => normalize(join(dirname(file), match[1]!))));
    graph.set(normalize(file), targets);
  }
  return graph;
}

/** The import circles in a graph, each as the files around it. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      found.push([...path.slice(path.indexOf(file)), file]);
      return;
    }
    state.set(file, "open");
    for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

test("src/ has no import circles", () => {
  expect(circles(importGraph())).toEqual([]);
});

test("no file at the top of src/ imports a plug: the core does not know its optional features", () => {
  const offenders = [...importGraph()].filter(([file, targets]) => dirname(file) === "src" && targets.some((target) => target.startsWith("src/plugs/")));
  expect(offenders.map(([file]) => file)).toEqual([]);
});

test("a plug imports only the core's public surface (src/mod.ts, src/types.ts) and its own folder", () => {
  const offending = [...importGraph()]
    .filter(([file]) => file.startsWith("src/plugs/"))
    .flatMap(([file, targets]) => {
      const own = `${file.split("/").slice(0, 3).join("/")}/`;
      return targets.filter((target) => target !== "src/mod.ts" && target !== "src/types.ts" && !target.startsWith(own)).map((target) => `${file} -> ${target}`);
    });
  expect(offending).toEqual([]);
});

test("the server (adapters/server/) takes the core through its public surface, the plugs' and tracing's entries and src/_server-entry.ts only", () => {
  const allowed = (target: string) =>
    target === "src/mod.ts" || target === "src/_server-entry.ts" || /^src\/(plugs\/[\w-]+|tracing)\/mod\.ts$/.test(target);
  const offending = sources("adapters/server").flatMap(({ file, lines }) =>
    lines
      .flatMap((line) => [...line.matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)].map((match) => normalize(join(dirname(file), match[1]!))))
      .filter((target) => target.startsWith("src/") && !allowed(target))
      .map((target) => `${file} -> ${target}`));
  expect(offending).toEqual([]);
});

/** The files a file reaches through its imports, itself aside. */
function reach(graph: Map<string, string[]>, file: string, seen: Set<string> = new Set()): Set<string> {
  for (const target of graph.get(file) ?? []) {
    if (!seen.has(target)) reach(graph, target, seen.add(target));
  }
  return seen;
}

/** The relative imports of a file, outside comments, as paths from the repository root. */
function importsOf(file: string, lines: readonly string[]): string[] {
  return lines
    .filter((line) => !/^\s*(\/\*\*|\*|\/\/)/.test(line))
    .flatMap((line) => [...line.matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)].map((match) => normalize(join(dirname(file), match[1]!))));
}

/** The project's stores: the memory store, and each `adapters/*-store/` folder's files. */
function storeSources(): { file: string; lines: string[] }[] {
  return [{ file: "src/memory-store.ts", lines: readFileSync("src/memory-store.ts", "utf8").split("\n") }, ...storeFolders().flatMap(sources)];
}

const STORES_ENTRY = "src/_internal/stores.ts";

/** A plug's entry, `src/plugs/<name>/mod.ts`: its public surface. */
const PLUG_ENTRY = /^src\/plugs\/[\w-]+\/mod\.ts$/;

test("the stores take from src/ only its public surface (src/mod.ts), the stores' entry, src/_internal/stores.ts, and a plug entry's types (issue 49, issue 51)", () => {
  const offending = storeSources().flatMap(({ file, lines }) =>
    importsOf(file, lines)
      .filter((target) => file.startsWith("adapters/") ? target.startsWith("src/") && target !== "src/mod.ts" && target !== STORES_ENTRY && !PLUG_ENTRY.test(target) : target.startsWith("src/_internal/") && target !== STORES_ENTRY)
      .map((target) => `${file} -> ${target}`));
  expect(offending).toEqual([]);
});

test("a store takes only types from a plug's entry (the PostgreSQL store's rate-limit counts implement the plug's RateCounters): no plug runs inside a store (issue 51)", () => {
  const offending = storeSources().flatMap(({ file, lines }) =>
    lines
      .filter((line) => /from\s+"(\.{1,2}\/)+src\/plugs\/[\w-]+\/mod\.ts"/.test(line) && !/^import type /.test(line))
      .map((line) => `${file}: ${line.trim()}`));
  expect(offending).toEqual([]);
});

test("the stores' entry takes nothing from above src/_internal/: no file it reaches imports a file of src/ that uses src/_internal/ (issue 49)", () => {
  const graph = importGraph();
  const usesInternal = (file: string) => !file.startsWith("src/_internal/") && [...reach(graph, file)].some((target) => target.startsWith("src/_internal/"));
  expect([...reach(graph, STORES_ENTRY)].filter(usesInternal)).toEqual([]);
});

test("the stores' entry is small and documented: at most 10 names, and a module comment saying who takes it", () => {
  const text = readFileSync(STORES_ENTRY, "utf8");
  const names = [...text.matchAll(/^export (?:type )?\{([^}]+)\}/gm)].flatMap((match) => match[1]!.split(",").map((name) => name.trim()));
  expect(names.length).toBeLessThanOrEqual(10);
  expect(text).toStartWith("/**\n * @module\n * Private: the one entry the project's stores");
});

/** The folders of the project's stores under `adapters/`. */
function storeFolders(): string[] {
  return readdirSync("adapters").filter((name) => name.endsWith("-store")).map((name) => `adapters/${name}`);
}

test("no file outside a store's folder imports a private (_) file of it: the server and the other stores take its entry (issue 49)", () => {
  const offending = ["src", "adapters"].flatMap(sources).flatMap(({ file, lines }) =>
    importsOf(file, lines)
      .filter((target) => storeFolders().some((folder) => target.startsWith(`${folder}/_`) && !file.startsWith(`${folder}/`)))
      .map((target) => `${file} -> ${target}`));
  expect(offending).toEqual([]);
});

test("nothing outside adapters/json-file-store/ reads its data file: the file's format name appears nowhere else (issue 49)", () => {
  const elsewhere = ["src", "adapters"].flatMap((folder) => offending(folder, /animal-store-pets/)).filter((where) => !where.startsWith("adapters/json-file-store/"));
  expect(elsewhere).toEqual([]);
});

test("no store imports another: what two stores share lives in a place of its own (adapters/_client-mac.ts, adapters/_files/) (issue 49)", () => {
  const offending = storeFolders().flatMap((folder) =>
    sources(folder).flatMap(({ file, lines }) =>
      importsOf(file, lines)
        .filter((target) => storeFolders().some((other) => other !== folder && target.startsWith(`${other}/`)))
        .map((target) => `${file} -> ${target}`)));
  expect(offending).toEqual([]);
});

test("src/_internal/ imports nothing above it: no arrow from it back to a module that uses it", () => {
  const graph = importGraph();
  const usesInternal = (file: string) => [...reach(graph, file)].some((target) => target.startsWith("src/_internal/"));
  const offending = [...graph]
    .filter(([file]) => file.startsWith("src/_internal/"))
    .flatMap(([file, targets]) => targets.filter((target) => !target.startsWith("src/_internal/") && usesInternal(target)).map((target) => `${file} -> ${target}`));
  expect(offending).toEqual([]);
});

// Issue 34's budget for the interface a learner reads: mechanics go to src/_internal/, not to the top.
// An operation (a module of src/operations/) is budgeted apart, one file each, so adding one never
// pushes a rule out of the interface (issue 42). Issue 49 set the numbers from the work: an
// operation declared once holds its schema and answers beside its handler (createPet, the largest,
// is 158 lines; PATCH with If-Match 96); the top was 1,502 lines in 19 files once operations were
// declared (operation.ts, the store-method table and the rule's places, the plugs' headers and
// reports), the recipes add about 30 more (PATCH: errors, If-Match, the context's tag, the store
// method; DELETE: the store method), and this round's other work (the stores' entry, API-key
// scopes) a file or two: 22 files and 1,600 lines leave that room and no more.
const TOP_FILES_BUDGET = 22;
const TOP_LINES_BUDGET = 1600;
const OPERATION_LINES_BUDGET = 200;

/** The operation files: the modules of src/operations/ but its list of them (`mod.ts`). */
function operationFiles(): string[] {
  return readdirSync("src/operations").filter((file) => file.endsWith(".ts") && file !== "mod.ts").map((file) => `src/operations/${file}`);
}

/** A file's lines as `wc -l` counts them: one per newline. */
function lineCount(file: string): number {
  return readFileSync(file, "utf8").split("\n").length - 1;
}

test(`the top of src/ stays a readable interface: at most ${TOP_FILES_BUDGET} files and ${TOP_LINES_BUDGET} lines`, () => {
  const top = readdirSync("src", { withFileTypes: true }).filter((entry) => entry.isFile() && entry.name.endsWith(".ts"));
  const lines = top.reduce((sum, entry) => sum + lineCount(`src/${entry.name}`), 0);
  expect(top.length).toBeLessThanOrEqual(TOP_FILES_BUDGET);
  expect(lines).toBeLessThanOrEqual(TOP_LINES_BUDGET);
});

test(`every operation is one file of src/operations/ of at most ${OPERATION_LINES_BUDGET} lines, listed in its mod.ts`, () => {
  const operations = operationFiles();
  expect(operations.length).toBeGreaterThan(0);
  expect(operations.filter((file) => lineCount(file) > OPERATION_LINES_BUDGET)).toEqual([]);
  const listed = [...readFileSync("src/operations/mod.ts", "utf8").matchAll(/^import \{[^}]+\} from "\.\/([\w-]+\.ts)";$/gm)].map((match) => `src/operations/${match[1]}`);
  expect(listed.sort()).toEqual(operations.sort());
});

test("only setHeaders (src/set-headers.ts) sets a header on an answer: the core copies, a wrap goes through it", () => {
  const setting = offending("src", /\bresponse\??\.headers\.(set|append|delete)\(/).filter((where) => !where.startsWith("src/set-headers.ts:"));
  expect(setting).toEqual([]);
});

/** The `.ts` and `.md` paths a comment names, e.g. `_fence.ts`, `../src/mod.ts`, `docs/running.md`. */
function pathsNamedIn(comment: string): string[] {
  return [...comment.matchAll(/(?<![\w./:-])((?:\.{1,2}\/)*\w[\w./-]*\.(?:ts|md))(?!\w)/g)].map((match) => match[1]!);
}

test("every .ts or .md file a comment in src/ or adapters/ names exists (from the file's folder, the repository root, src/ or adapters/)", () => {
  const missing = ["src", "adapters"].flatMap((folder) =>
    sources(folder).flatMap(({ file, lines }) =>
      lines.flatMap((line, index) => {
        const comment = /^\s*(\/\*\*|\*|\/\/)/.test(line) ? line : line.match(/\/\/ .*$/)?.[0] ?? "";
        return pathsNamedIn(comment)
          .filter((named) => ![join(dirname(file), named), named, join("src", named), join("adapters", named)].some((path) => existsSync(path)))
          .map((named) => `${file}:${index + 1} names ${named}`);
      })));
  expect(missing).toEqual([]);
});
