/**
 * @module
 * `animal-store export` and `animal-store import` as processes, on the runtime's own start script:
 * the move from a JSON file into PostgreSQL through a pipe on Bun, Deno and Node, byte-identical
 * round trips, and every bad input the issue names, each a clear line, an exit code, and a target
 * untouched or complete.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import packageJson from "../package.json" with { type: "json" };
import type { PetStore } from "../src/mod.ts";
import { createMemoryStore, exportPets, importPets, MAX_EXACT_INTEGER, StoreUnavailableError } from "../src/mod.ts";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { openPostgresStore } from "../adapters/postgres-store/mod.ts";
import { writeExport } from "../adapters/server/export.ts";
import { runMove } from "../adapters/server/move-commands.ts";
import { waitFor } from "./checks.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { dataFileWith } from "./data-files.ts";
import { tempDataFile } from "./temp.ts";

type Runtime = "bun" | "deno" | "node";
const SCRIPTS: Record<Runtime, string> = { bun: "start", deno: "start:deno", node: "start:node" };
const scripts: Record<string, string | undefined> = packageJson.scripts;
const quiet = { info: () => {}, warn: () => {} };

/** The argv of the runtime's start script with `args` after it. */
function argv(runtime: Runtime, args: readonly string[]): string[] {
  const [command = "", ...rest] = (scripts[SCRIPTS[runtime]] ?? "").replace(/^exec /, "").split(" ");
  const local = `node_modules/.bin/${command}`;
  return [existsSync(local) ? local : command, ...rest, ...args];
}

/** A command's outcome. */
interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the command to its end (bounded), with `stdin` as its input. */
async function run(runtime: Runtime, args: readonly string[], stdin: string | ReadableStream<Uint8Array> = ""): Promise<Outcome> {
  const child = Bun.spawn(argv(runtime, args), { stdin: typeof stdin === "string" ? new Blob([stdin]) : stdin, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A JSON-file store at a new path holding `count` pets (every third sold). */
async function fileWith(count: number): Promise<string> {
  const path = tempDataFile();
  const store = await openJsonFileStore(path, { logger: quiet });
  for (let i = 0; i < count; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, j) =>
      store.create({ name: `pet ${i + j}`, categoryId: (i + j) % 7, ...((i + j) % 3 === 0 ? { status: "sold" as const } : {}) })));
  }
  await store.close();
  return path;
}

/** Every pet of a store, through its export. */
async function petsOf(store: PetStore): Promise<unknown[]> {
  const pets = [];
  for await (const { pet } of exportPets(store)) pets.push(pet);
  return pets;
}

async function filePets(path: string): Promise<unknown[]> {
  const store = await openJsonFileStore(path, { logger: quiet });
  try {
    return await petsOf(store);
  } finally {
    await store.close();
  }
}

async function databasePets(url: string): Promise<unknown[]> {
  const sql = new Bun.SQL(url, { max: 1 });
  try {
    return (await sql`select id from pets order by id`).map((row: { id: unknown }) => Number(row.id));
  } finally {
    await sql.close();
  }
}

/** The checksums a command printed (`sha256 <hex>`), in order. */
const sums = (text: string) => [...text.matchAll(/sha256 ([0-9a-f]{64})/g)].map((match) => match[1]);

describe("export | import into PostgreSQL", () => {
  for (const runtime of ["bun", "deno", "node"] as const) {
    test(`on ${runtime}: every pet and id moves, and both sides print one count and checksum`, async () => {
      const source = await fileWith(1200);
      const url = await (await postgresServer()).createDatabase();
      const exported = Bun.spawn(argv(runtime, ["export", "--data-file", source]), { stdout: "pipe", stderr: "pipe" });
      const imported = await run(runtime, ["import", "--store", "postgres", "--database-url", url], exported.stdout);
      const exportLine = await new Response(exported.stderr).text();
      expect(await exported.exited).toBe(0);
      expect(imported).toMatchObject({ code: 0 });
      expect(exportLine).toContain("exported 1200 pets (last id 1200)");
      expect(imported.stdout).toContain("imported 1200 pets (last id 1200) into the PostgreSQL database");
      expect(imported.stdout).toContain("read back 1200 pets from the PostgreSQL database");
      expect(imported.stdout).toContain("they agree");
      expect(new Set([...sums(exportLine), ...sums(imported.stdout)]).size).toBe(1);
      expect(await databasePets(url)).toEqual(Array.from({ length: 1200 }, (_, i) => i + 1));
    }, 120_000);
  }
});

test("memory → file → PostgreSQL → file: every export is byte-identical", async () => {
  const memory = createMemoryStore();
  for (let i = 0; i < 300; i++) await memory.create({ name: `p ${i} é ☃`, categoryId: i - 150, ...(i % 4 === 0 ? { status: "pending" as const } : {}) });
  const first = tempDataFile().replace(/pets\.json$/, "first.jsonl");
  const sink = (await import("node:fs")).createWriteStream(first);
  await writeExport(exportPets(memory), sink);
  await new Promise((resolve) => sink.end(resolve));
  const exports = [readFileSync(first, "utf8")];
  const [fileA, fileB] = [tempDataFile(), tempDataFile()];
  const url = await (await postgresServer()).createDatabase();
  const stops = [["--data-file", fileA], ["--store", "postgres", "--database-url", url], ["--data-file", fileB]];
  for (const target of stops) {
    expect(await run("bun", ["import", ...target], exports[exports.length - 1]!)).toMatchObject({ code: 0 });
    const out = await run("bun", ["export", ...target]);
    expect(out.code).toBe(0);
    exports.push(out.stdout);
  }
  expect(new Set(exports).size).toBe(1);
  expect(exports[0]!.split("\n")).toHaveLength(303); // header, 300 pets, last line, and the final newline
}, 120_000);

describe("bad input is refused with one line and exit 2, and the target is left untouched", () => {
  const good = async () => (await run("bun", ["export", "--data-file", await fileWith(3)])).stdout;
  const lines = (text: string) => text.trimEnd().split("\n");
  const cases: [string, (text: string) => string, string][] = [
    ["a truncated export", (text) => lines(text).slice(0, -2).join("\n") + "\n", 'line 4 is missing: the input ends without the export\'s last line'],
    ["a line with id 0", (text) => text.replace('{"id":2,', '{"id":0,'), 'line 3 is not a valid pet: "id" must be a positive integer, got 0'],
    ["a duplicate id", (text) => text.replace('{"id":3,', '{"id":2,'), "line 4 has id 2, not above the previous id 2"],
    ["a name of 10 MB", (text) => text.replace('"pet 1"', JSON.stringify("x".repeat(10_000_000))), "line 3 is longer than 1048576 bytes"],
    ["a count that differs", (text) => text.replace('"count":3', '"count":4'), "line 5 states 4 pets, but 3 came before it"],
    ["a last id above the last pet's (issue 48, item 8)", (text) => text.replace('"lastId":3', '"lastId":999999'), "line 5 states last id 999999, but the last pet before it has id 3"],
    ["a negative last id (issue 48, item 8)", (text) => text.replace('"lastId":3', '"lastId":-5'), "line 5 states last id -5, but the last pet before it has id 3"],
    ["a line that is not JSON", (text) => text.replace('{"id":2,', '{"id":2,,'), "line 3 is not a valid pet"],
    ["another file's header", (text) => text.replace("animal-store-export", "animal-store-pets"), "line 1 is not the export header"],
  ];
  for (const [name, change, message] of cases) {
    test(name, async () => {
      const target = tempDataFile();
      const outcome = await run("bun", ["import", "--data-file", target], change(await good()));
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain(`animal-store import: ${message}`);
      expect(outcome.stderr).toContain("nothing was imported");
      expect(await filePets(target)).toEqual([]);
    }, 60_000);
  }

  test("a target that holds pets, unless --append, which adds above its highest id", async () => {
    const target = await fileWith(5);
    const input = (await run("bun", ["export", "--data-file", await fileWith(3)])).stdout;
    const refused = await run("bun", ["import", "--data-file", target], input);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("animal-store import: the target store already holds 5 pets; import into an empty store, or append above its highest id");
    expect(await filePets(target)).toHaveLength(5);
    const low = await run("bun", ["import", "--append", "--data-file", target], input);
    expect(low.stderr).toContain("line 2 has id 1, not above the highest id the target store has handed out 5");
    const shifted = input.replace(/"id":(\d)/g, (_, id: string) => `"id":${Number(id) + 10}`).replace('"lastId":3', '"lastId":13').replace(/"sha256":"[0-9a-f]+"/, '"sha256":"x"');
    const summed = shifted.replace('"sha256":"x"', `"sha256":"${(await run("bun", ["import", "--store", "memory"], shifted)).stderr.match(/sum to ([0-9a-f]{64})/)![1]}"`);
    expect(await run("bun", ["import", "--append", "--data-file", target], summed)).toMatchObject({ code: 0 });
    expect((await filePets(target)).map((pet) => (pet as { id: number }).id)).toEqual([1, 2, 3, 4, 5, 11, 12, 13]);
  }, 60_000);
});

test("with MIGRATE=off, an import into a data file that does not exist is refused as the server's open refuses it, and makes none (issue 53)", async () => {
  const input = (await run("bun", ["export", "--data-file", await fileWith(2)])).stdout;
  const missing = tempDataFile();
  const outcome = await run("bun", ["import", "--migrate", "off", "--data-file", missing], input);
  expect(outcome.code).toBe(1);
  expect(outcome.stderr).toContain(`animal-store: ${missing} does not exist, and with MIGRATE=off the server makes no data file`);
  expect(existsSync(missing)).toBe(false);
  expect(await run("bun", ["import", "--data-file", missing], input)).toMatchObject({ code: 0 });
  expect(await filePets(missing)).toHaveLength(2);
}, 60_000);

test("a BOM and CRLF line ends, as an editor saves them, are read as if absent", async () => {
  const input = (await run("bun", ["export", "--data-file", await fileWith(3)])).stdout;
  const target = tempDataFile();
  const outcome = await run("bun", ["import", "--data-file", target], `\uFEFF${input.replaceAll("\n", "\r\n")}`);
  expect(outcome).toMatchObject({ code: 0 });
  expect(await filePets(target)).toHaveLength(3);
}, 60_000);

/** Starts an import whose input stops half way, and resolves once `ready` sees it at work. */
async function halfImport(target: readonly string[], ready: () => Promise<boolean>) {
  const input = (await run("bun", ["export", "--data-file", await fileWith(20_000)])).stdout;
  const child = Bun.spawn(argv("bun", ["import", ...target]), { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  child.stdin.write(input.slice(0, input.length / 2));
  await child.stdin.flush();
  await waitFor("the import at work", async () => ((await ready()) ? true : undefined), 30_000);
  return { child, stderr: () => new Response(child.stderr).text() };
}

test("kill -9 half way into a JSON file leaves the file as it was", async () => {
  const target = tempDataFile();
  const { child } = await halfImport(["--data-file", target], async () => existsSync(`${target}.import`));
  child.kill("SIGKILL");
  await child.exited;
  expect(await filePets(target)).toEqual([]);
  expect(existsSync(`${target}.import`)).toBe(false); // the open removed the half-written copy
}, 60_000);

test("SIGTERM half way into PostgreSQL: one line, exit 1, and the database holds none of it", async () => {
  const url = await (await postgresServer()).createDatabase();
  const { child, stderr } = await halfImport(["--store", "postgres", "--database-url", url], async () => await importRunning(url));
  child.kill("SIGTERM");
  expect(await child.exited).toBe(1);
  expect(await stderr()).toContain("animal-store import: stopped by SIGTERM; the import was undone, the target holds none of it");
  expect(await databasePets(url)).toEqual([]);
}, 60_000);

test("kill -9 half way into PostgreSQL, and the database cutting the import off: it holds none of it", async () => {
  const killed = await (await postgresServer()).createDatabase();
  const nine = await halfImport(["--store", "postgres", "--database-url", killed], async () => await importRunning(killed));
  nine.child.kill("SIGKILL");
  await nine.child.exited;
  expect(await databasePets(killed)).toEqual([]);

  const cut = await (await postgresServer()).createDatabase();
  const { child, stderr } = await halfImport(["--store", "postgres", "--database-url", cut], async () => await importRunning(cut));
  const admin = new Bun.SQL(cut, { max: 1 });
  await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'animal-store'`;
  await admin.close();
  child.stdin.write("more");
  child.stdin.end();
  expect(await child.exited).toBe(1);
  expect(await stderr()).toContain("the import was undone, the target holds none of it");
  expect(await databasePets(cut)).toEqual([]);
}, 60_000);

/** Whether an import's transaction holds the counter row of the database at `url`. */
async function importRunning(url: string): Promise<boolean> {
  const sql = new Bun.SQL(url, { max: 1 });
  try {
    const rows = await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'animal-store' and xact_start is not null`;
    return rows[0].n > 0;
  } finally {
    await sql.close();
  }
}

test("an export of a file that does not exist, and an import into a file a server holds, each fail with one line", async () => {
  const missing = tempDataFile();
  const exported = await run("bun", ["export", "--data-file", missing]);
  expect(exported).toMatchObject({ code: 1, stdout: "" });
  expect(exported.stderr).toBe(`animal-store export: ${missing} does not exist; nothing complete was written\n`);
  const held = await fileWith(2);
  const server = await startServer("bun", { DATA_FILE: held, API_KEYS: "k" });
  try {
    const input = (await run("bun", ["export", "--data-file", await fileWith(1)])).stdout;
    const imported = await run("bun", ["import", "--append", "--data-file", held], input);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(`animal-store: Cannot open ${held}: it is in use by process`);
  } finally {
    expect(await server.stop()).toBe(0);
  }
  expect(await filePets(held)).toHaveLength(2);
}, 60_000);

test("SIGHUP half way into a JSON file, as a closed terminal sends it (issue 48, item 16): one line, exit 1, and the file as it was", async () => {
  const target = tempDataFile();
  const child = Bun.spawn(argv("bun", ["import", "--data-file", target]), { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  child.stdin.write('{"format":"animal-store-export","version":1}\n{"id":1,"name":"a","categoryId":1}\n');
  await child.stdin.flush();
  await waitFor("the import at work", () => (existsSync(`${target}.import`) ? true : undefined), 30_000);
  child.kill("SIGHUP");
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  expect(stderr).toContain("animal-store import: stopped by SIGHUP; the import was undone, the target holds none of it");
  expect(code).toBe(1);
  expect(await filePets(target)).toEqual([]);
}, 60_000);

describe("names with control characters, which POST refuses, are imported as a data file holds them (issue 48, item 16)", () => {
  const export1 = async () => {
    const source = createMemoryStore();
    await importPets(source, [{ pet: { id: 1, name: "bell\u0007 and tab\t", categoryId: 1 } }, { pet: { id: 2, name: "esc\u001b[31m", categoryId: 2 } }]);
    const chunks: string[] = [];
    await writeExport(exportPets(source), new (await import("node:stream")).Writable({ write: (chunk, _, done) => (chunks.push(String(chunk)), done()) }));
    return chunks.join("");
  };

  test("into a JSON file: kept as they were, exit 0", async () => {
    const target = tempDataFile();
    expect(await run("bun", ["import", "--data-file", target], await export1())).toMatchObject({ code: 0 });
    expect((await filePets(target)).map((pet) => (pet as { name: string }).name)).toEqual(["bell\u0007 and tab\t", "esc\u001b[31m"]);
  }, 60_000);

  test("U+0000, which PostgreSQL cannot store, is refused there naming the pets, exit 2, nothing imported", async () => {
    const url = await (await postgresServer()).createDatabase();
    const input = (await export1()).replace("bell\\u0007", "nul\\u0000").replace(/"sha256":"[0-9a-f]+"/, '"sha256":"x"');
    const summed = input.replace('"sha256":"x"', `"sha256":"${(await run("bun", ["import", "--store", "memory"], input)).stderr.match(/sum to ([0-9a-f]{64})/)![1]}"`);
    const outcome = await run("bun", ["import", "--store", "postgres", "--database-url", url], summed);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain("animal-store import: line 2 a pet with an id from 1 to 2 cannot be stored in PostgreSQL");
    expect(await databasePets(url)).toEqual([]);
  }, 60_000);
});

describe("SIGTERM half way into a JSON file", () => {
  for (const runtime of ["bun", "deno", "node"] as const) {
    test(`on ${runtime}: one line, exit 1 once the import is undone, and the file as it was`, async () => {
      const target = tempDataFile();
      const child = Bun.spawn(argv(runtime, ["import", "--data-file", target]), { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
      child.stdin.write('{"format":"animal-store-export","version":1}\n{"id":1,"name":"a","categoryId":1}\n');
      await child.stdin.flush(); // and stdin stays open, as a pipe from a slow export does
      await waitFor("the import at work", () => (existsSync(`${target}.import`) ? true : undefined), 30_000);
      child.kill("SIGTERM");
      const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
      expect(code).toBe(1);
      expect(stderr).toContain("animal-store import: stopped by SIGTERM; the import was undone, the target holds none of it");
      expect(stderr).not.toContain("did not finish undoing");
      expect(await filePets(target)).toEqual([]);
    }, 60_000);
  }
});

/** An export (as text) of the pets with these ids. */
async function exportOf(ids: readonly number[]): Promise<string> {
  const source = createMemoryStore();
  await importPets(source, ids.map((id) => ({ pet: { id, name: `pet ${id}`, categoryId: 1 } })));
  const chunks: string[] = [];
  const sink = new (await import("node:stream")).Writable({ write: (chunk, _, done) => (chunks.push(String(chunk)), done()) });
  await writeExport(exportPets(source), sink);
  return chunks.join("");
}

describe("an import at the top id, 2^53 − 1 (issue 48, item 1)", () => {
  test("into a JSON file: kept, saying no id is left; the store then refuses creates with 503 and opens again", async () => {
    const target = tempDataFile();
    const outcome = await run("bun", ["import", "--data-file", target], await exportOf([5, MAX_EXACT_INTEGER]));
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toContain(`animal-store import: no id is left above the last imported id ${MAX_EXACT_INTEGER} (ids end at 2^53 − 1, and are never reused): every create will answer 503`);
    for (let open = 0; open < 2; open++) {
      const store = await openJsonFileStore(target, { logger: quiet });
      try {
        expect(await store.create({ name: "one more", categoryId: 1 }).catch((error: unknown) => error)).toBeInstanceOf(StoreUnavailableError);
        expect((await store.list({ limit: 10, after: 0 })).map((pet) => pet.id)).toEqual([5, MAX_EXACT_INTEGER]);
      } finally {
        await store.close();
      }
    }
    expect(Number(readFileSync(`${target}.last-id`, "utf8"))).toBe(MAX_EXACT_INTEGER);
  }, 60_000);

  test("into PostgreSQL: a few ids left are said, used, and then every create is refused with 503, not a 500", async () => {
    const url = await (await postgresServer()).createDatabase();
    const outcome = await run("bun", ["import", "--store", "postgres", "--database-url", url], await exportOf([MAX_EXACT_INTEGER - 2]));
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toContain(`animal-store import: only 2 ids are left above the last imported id ${MAX_EXACT_INTEGER - 2}`);
    const sql = new Bun.SQL(url, { max: 2 });
    const store = await openPostgresStore({ sql, logger: quiet });
    try {
      const outcomes = await Promise.allSettled([1, 2, 3, 4].map((i) => store.create({ name: `c${i}`, categoryId: i })));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled").map((outcome) => outcome.value.id).sort((a, b) => a - b)).toEqual([MAX_EXACT_INTEGER - 1, MAX_EXACT_INTEGER]);
      for (const outcome of outcomes.filter((outcome) => outcome.status === "rejected")) expect(outcome.reason).toBeInstanceOf(StoreUnavailableError);
      expect(await store.create({ name: "later", categoryId: 1 }).catch((error: unknown) => error)).toBeInstanceOf(StoreUnavailableError);
    } finally {
      await store.close();
      await sql.close();
    }
  }, 60_000);
});

/** A file holding an export of `count` pets (ids 1 to `count`), written without a store. */
async function exportFile(count: number): Promise<string> {
  const path = tempDataFile().replace(/pets\.json$/, "export.jsonl");
  async function* pets() {
    for (let id = 1; id <= count; id++) yield { pet: { id, name: `pet ${id}`, categoryId: id % 7 } };
  }
  const sink = (await import("node:fs")).createWriteStream(path);
  await writeExport(pets(), sink);
  await new Promise((resolve) => sink.end(resolve));
  return path;
}

/**
 * Runs an import and, once it prints that it imported (the read-back then runs), sends it SIGTERM;
 * frozen meanwhile (SIGSTOP), so the signal is there before the read-back can end, however busy the machine.
 */
async function termAfterCommit(runtime: Runtime, args: readonly string[]): Promise<Outcome> {
  const child = Bun.spawn(argv(runtime, ["import", ...args]), { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.getReader();
  let stdout = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    stdout += new TextDecoder().decode(chunk.value);
    if (!stdout.includes("imported ")) continue;
    child.kill("SIGSTOP");
    child.kill("SIGTERM");
    child.kill("SIGCONT");
    break;
  }
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) stdout += new TextDecoder().decode(chunk.value);
  const code = await child.exited;
  clearTimeout(timer);
  return { code, stdout, stderr: await stderr };
}

/** Expects an import that a signal reached during its read-back to say it is complete and exit 0. */
function expectComplete(outcome: Outcome, count: number): void {
  expect(outcome.stderr).not.toContain("undone");
  expect(outcome.stderr).not.toContain("did not finish");
  expect(outcome.stdout).toContain(`imported ${count} pets`);
  expect(outcome.stderr).toContain(`animal-store import: stopped by SIGTERM after the import was complete: ${count} pets are in`);
  expect(outcome.stderr).toContain("the read-back was cut short, so its count and checksum were not compared");
  expect(outcome.code).toBe(0);
}

describe("SIGTERM once the import has committed, during its read-back (issue 48, item 5): exit 0, saying the import is complete", () => {
  for (const runtime of ["bun", "deno", "node"] as const) {
    test(`into a JSON file, on ${runtime}`, async () => {
      const target = tempDataFile();
      expectComplete(await termAfterCommit(runtime, ["--data-file", target, "--in", await exportFile(200_000)]), 200_000);
      const store = await openJsonFileStore(target, { logger: quiet });
      try {
        expect((await store.list({ limit: 1, after: 199_999 })).map((pet) => pet.id)).toEqual([200_000]);
      } finally {
        await store.close();
      }
    }, 180_000);
  }

  test("into PostgreSQL, on bun", async () => {
    const url = await (await postgresServer()).createDatabase();
    const outcome = await termAfterCommit("bun", ["--store", "postgres", "--database-url", url, "--in", await exportFile(100_000)]);
    expectComplete(outcome, 100_000);
    expect((await databasePets(url)).length).toBe(100_000);
  }, 180_000);
});

/** A data file of `count` pets (ids 1 to `count`), written as the store writes it, without a store. */
function dataFileOf(count: number): string {
  const path = tempDataFile();
  const lines = Array.from({ length: count }, (_, i) => `{"id":${i + 1},"name":"pet ${i + 1}","categoryId":${i % 7}}\n`);
  writeFileSync(path, `{"format":"animal-store-pets","version":1}\n${lines.join("")}`);
  return path;
}

describe("export --out (issue 48, item 10)", () => {
  for (const runtime of ["bun", "deno", "node"] as const) {
    test(`on ${runtime}: SIGTERM half way removes FILE.partial, says nothing complete was written, and exits 1`, async () => {
      const source = dataFileOf(300_000);
      const out = source.replace(/pets\.json$/, "backup.jsonl");
      const child = Bun.spawn(argv(runtime, ["export", "--data-file", source, "--out", out]), { stdout: "pipe", stderr: "pipe" });
      const stderr = new Response(child.stderr).text();
      await waitFor("the export at work", () => (existsSync(`${out}.partial`) && statSync(`${out}.partial`).size > 0 ? true : undefined), 60_000);
      // Frozen while signalled, so the export cannot end first however busy the machine.
      child.kill("SIGSTOP");
      child.kill("SIGTERM");
      child.kill("SIGCONT");
      expect(await child.exited).toBe(1);
      expect(await stderr).toContain("animal-store export: stopped by SIGTERM; nothing complete was written");
      expect(existsSync(`${out}.partial`)).toBe(false);
      expect(existsSync(out)).toBe(false);
    }, 120_000);
  }

  test("the file is written mode 600, as the secret it may carry is kept, even over a copy left behind mode 644", async () => {
    const path = tempDataFile();
    const store = await openJsonFileStore(path, { logger: quiet });
    await store.createWithKey!({ name: "Rex", categoryId: 1 }, { client: "digest-of-alice", key: "k-1" });
    await store.close();
    const out = path.replace(/pets\.json$/, "backup.jsonl");
    writeFileSync(`${out}.partial`, "left by a killed export\n", { mode: 0o644 });
    expect(await run("bun", ["export", "--data-file", path, "--out", out])).toMatchObject({ code: 0 });
    expect(readFileSync(out, "utf8")).toContain('"clientMacSecrets"');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}.secret`).mode & 0o777).toBe(0o600);
  }, 60_000);
});

test("a secret on a store command's command line warns through the command's notices, naming the file setting, never the secret", async () => {
  const path = await dataFileWith(1);
  const said: string[] = [];
  const notices = { info: (line: string) => void said.push(line), warn: (line: string) => void said.push(line), error: (line: string) => void said.push(line) };
  const args = ["export", "--store", "file", "--data-file", path, "--out", `${path}.export`, "--database-url", "postgres://u:cmdline-password@127.0.0.1:1/d"];
  const open = () => Promise.reject(new Error("export opens its own store"));
  expect(await runMove(args, {}, { runtime: {} as never, notices }, open)).toBe(0);
  expect(said).toEqual(["animal-store: --database-url on the command line can be read by every user of this machine (ps, /proc); put it in a file of mode 600 and set DATABASE_URL_FILE instead"]);
  expect(readFileSync(`${path}.export`, "utf8")).toContain(`"name":"pet 0"`);
});
