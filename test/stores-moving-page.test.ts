/**
 * @module
 * docs/stores.md's "Moving pets between stores", followed as printed: every shell command of the
 * section runs (its paths and database URL pointed at a temp folder and a test database, `psql -c`
 * run through a client), and the library example prints what its comment says.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Pet } from "../src/mod.ts";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { shell } from "./shell.ts";
import { tempFolder } from "./temp.ts";

const section = readFileSync("docs/stores.md", "utf8").split("## Moving pets between stores")[1] ?? "";
const part = (heading: string) => section.split(heading)[1]?.split("\n**")[0] ?? "";
const shellBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)\n```/g)].flatMap((match) => match[1]!.split("\n"));
const PAGE_URL = "postgres://animal_store:change-me@127.0.0.1:5432/pets";
const quiet = { info: () => {}, warn: () => {} };

/** Runs one of the page's commands in the repository, with its paths and URL pointed at `folder` and `url`. */
async function runCommand(line: string, folder: string, url: string): Promise<string> {
  const command = line.replaceAll("data/pets.json", join(folder, "pets.json")).replace(/(^| )backup\.jsonl/g, `$1${join(folder, "backup.jsonl")}`).replaceAll(PAGE_URL, url);
  const psql = /^psql (\S+) -c "([^"]+)"$/.exec(command);
  if (psql !== null) {
    const sql = new Bun.SQL(psql[1]!, { max: 1 });
    await sql.unsafe(psql[2]!);
    await sql.close();
    return "";
  }
  const { stdout, stderr } = await shell(command);
  return stdout + stderr;
}

async function filePets(path: string): Promise<Pet[]> {
  const store = await openJsonFileStore(path, { logger: quiet });
  try {
    return await store.list({ limit: 10_000, after: 0 });
  } finally {
    await store.close();
  }
}

async function seed(path: string, count: number): Promise<Pet[]> {
  const store = await openJsonFileStore(path, { logger: quiet });
  try {
    for (let i = 0; i < count; i++) await store.create({ name: `pet ${i}`, categoryId: i, ...(i % 2 === 0 ? { status: "available" as const } : {}) });
    return await store.list({ limit: count, after: 0 });
  } finally {
    await store.close();
  }
}

test("Moving to PostgreSQL: the printed pipe moves every pet, and both sides print one checksum", async () => {
  const folder = tempFolder();
  const pets = await seed(join(folder, "pets.json"), 50);
  const url = await (await postgresServer()).createDatabase();
  const commands = shellBlocks(part("### Moving to PostgreSQL"));
  const output = await runCommand(commands[0]!, folder, url);
  const sums = new Set([...output.matchAll(/sha256 ([0-9a-f]{64})/g)].map((match) => match[1]));
  expect(output).toContain("exported 50 pets");
  expect(output).toContain("imported 50 pets");
  expect(sums.size).toBe(1);
  const sql = new Bun.SQL(url, { max: 1 });
  expect((await sql`select count(*)::int as n from pets`)[0].n).toBe(pets.length);
  await sql.close();
}, 120_000);

/** The settings step 3 of "Moving to PostgreSQL" starts each instance with: its `export` lines run by bash in `folder`, with nothing set before. */
async function instanceSettings(folder: string, url: string): Promise<Record<string, string>> {
  const lines = shellBlocks(part("### Moving to PostgreSQL")).slice(1);
  expect(lines.filter((line) => !line.startsWith("export ")).map((line) => line.replace(/^PORT=\d+ /, ""))).toEqual(["npm start &", "npm start &"]);
  const exports = lines.filter((line) => line.startsWith("export ")).map((line) => line.replaceAll("data/api-key", join(folder, "api-key")).replaceAll(PAGE_URL, url));
  const names = ["STORE", "DATABASE_URL", "API_KEYS", "PUBLIC_URL", "TRUST_PROXY"];
  const child = Bun.spawn(["bash", "-c", `unset ${names.join(" ")}; ${exports.join("; ")}; ${names.map((name) => `printf '%s\\0' "$${name}"`).join("; ")}`], { stdout: "pipe" });
  const values = (await new Response(child.stdout).text()).split("\0");
  expect(await child.exited).toBe(0);
  return Object.fromEntries(names.map((name, i) => [name, values[i]!]));
}

test("Moving to PostgreSQL keeps the API keys (issue 48, item 21): after the printed steps, a client's key works and its pending retry replays", async () => {
  const folder = tempFolder();
  const path = join(folder, "pets.json");
  const url = await (await postgresServer()).createDatabase();
  const before = await (async () => {
    // Started as `npm start` is, without API_KEYS: the key it generates is kept in the data folder.
    await using server = await startServer("bun", { DATA_FILE: path });
    const key = readFileSync(join(folder, "api-key"), "utf8").trim();
    const response = await fetch(`${server.url}/pets`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": "sent-before" }, body: '{"name":"Rex","categoryId":1}' });
    expect(response.status).toBe(201);
    const pet = (await response.json()) as Pet;
    expect(await server.stop()).toBe(0);
    return { key, pet };
  })();
  await runCommand(shellBlocks(part("### Moving to PostgreSQL"))[0]!, folder, url);
  const settings = await instanceSettings(folder, url);
  expect(settings).toMatchObject({ STORE: "postgres", DATABASE_URL: url, API_KEYS: before.key });
  await using instance = await startServer("bun", settings);
  const retry = await fetch(`${instance.url}/pets`, { method: "POST", headers: { authorization: `Bearer ${before.key}`, "content-type": "application/json", "idempotency-key": "sent-before" }, body: '{"name":"Rex","categoryId":1}' });
  expect(retry.status).toBe(201);
  expect(retry.headers.get("idempotent-replayed")).toBe("true");
  expect(await retry.json()).toEqual(before.pet);
}, 120_000);

test("Back up and restore, JSON file: a backup taken while the server runs restores every pet, and no id is handed out twice", async () => {
  const folder = tempFolder();
  const path = join(folder, "pets.json");
  const pets = await seed(path, 20);
  const [backup, restore] = [shellBlocks(part("**JSON-file store.**").split("Restore with")[0]!), shellBlocks(part("**JSON-file store.**").split("Restore with")[1]!)];
  expect([backup.length, restore.length]).toEqual([1, 2]);
  const server = await startServer("bun", { DATA_FILE: path, API_KEYS: "page-key" });
  let later: Pet;
  try {
    await runCommand(backup[0]!, folder, "");
    const response = await fetch(`${server.url}/pets`, { method: "POST", headers: { authorization: "Bearer page-key", "content-type": "application/json" }, body: '{"name":"after the backup","categoryId":1}' });
    later = (await response.json()) as Pet;
  } finally {
    expect(await server.stop()).toBe(0);
  }
  writeFileSync(path, "damaged\n");
  for (const command of restore) await runCommand(command, folder, "");
  expect(await filePets(path)).toEqual(pets);
  const store = await openJsonFileStore(path, { logger: quiet });
  try {
    const next = await store.create({ name: "next", categoryId: 1 });
    expect(next.id).toBeGreaterThan(later.id);
  } finally {
    await store.close();
  }
}, 120_000);

test("Back up and restore, PostgreSQL: the printed backup, emptying and import bring every pet back, and ids continue", async () => {
  const folder = tempFolder();
  const url = await (await postgresServer()).createDatabase();
  const pets = await seed(join(folder, "source.json"), 30);
  await runCommand(`npm start --silent -- export --data-file ${join(folder, "source.json")} | npm start --silent -- import --store postgres --database-url ${url}`, folder, url);
  const text = part("**PostgreSQL.**");
  const [backup, restore] = [shellBlocks(text.split("Restore with")[0]!), shellBlocks(text.split("Restore with")[1]!)];
  expect([backup.length, restore.length]).toEqual([1, 2]);
  await runCommand(backup[0]!, folder, url);
  for (const command of restore) await runCommand(command, folder, url);
  const sql = new Bun.SQL(url, { max: 1 });
  try {
    expect((await sql`select id, name from pets order by id`).map((row: { id: unknown; name: string }) => [Number(row.id), row.name])).toEqual(pets.map((pet) => [pet.id, pet.name]));
    expect(Number((await sql`select last_pet_id from animal_store`)[0].last_pet_id)).toBe(30);
  } finally {
    await sql.close();
  }
}, 120_000);

test("A second hop (issue 48, item 2): file → PostgreSQL → the printed backup → a fresh database, and a moved keyed create retried there replays", async () => {
  const folder = tempFolder();
  const path = join(folder, "pets.json");
  const [first, second] = [await (await postgresServer()).createDatabase(), await (await postgresServer()).createDatabase()];
  const keyed = { method: "POST", headers: { authorization: "Bearer page-key", "content-type": "application/json", "idempotency-key": "moved-twice" }, body: '{"name":"Rex","categoryId":1}' };
  const created = await (async () => {
    await using server = await startServer("bun", { DATA_FILE: path, API_KEYS: "page-key" });
    const response = await fetch(`${server.url}/pets`, keyed);
    expect(response.status).toBe(201);
    const pet = (await response.json()) as Pet;
    expect(await server.stop()).toBe(0);
    return pet;
  })();
  const move = shellBlocks(part("### Moving to PostgreSQL"))[0]!;
  expect(await runCommand(move, folder, first)).toContain("1 idempotency keys younger than 24 hours came along");
  const text = part("**PostgreSQL.**");
  const [backup, restore] = [shellBlocks(text.split("Restore with")[0]!)[0]!, shellBlocks(text.split("Restore with")[1]!).at(-1)!];
  await runCommand(backup, folder, first);
  expect(readFileSync(join(folder, "backup.jsonl"), "utf8")).toContain('"idempotency":{"clientMac"');
  expect(await runCommand(restore, folder, second)).toContain("1 idempotency keys younger than 24 hours came along");
  await using server = await startServer("bun", { STORE: "postgres", DATABASE_URL: second, API_KEYS: "page-key" });
  const retry = await fetch(`${server.url}/pets`, keyed);
  expect(retry.status).toBe(201);
  expect(retry.headers.get("idempotent-replayed")).toBe("true");
  expect(await retry.json()).toEqual(created);
}, 120_000);

/** A page command with its `backups` and `drill` folders moved into `folder`, as its data file is. */
function inFolder(line: string, folder: string): string {
  return line.replace(/(^| )(backups|drill)(?=[/ ]|$)/g, `$1${folder}/$2`);
}

test("Check, scheduled backups and the restore drill, as printed: the backup checks, and the file's and PostgreSQL's drills export it byte for byte", async () => {
  const folder = tempFolder();
  const path = join(folder, "pets.json");
  const store = await openJsonFileStore(path, { logger: quiet });
  for (let i = 0; i < 12; i++) {
    const pet = { name: `pet ${i}`, categoryId: i };
    if (i % 4 === 0) await store.createWithKey!(pet, { client: "c".repeat(64), key: `key-${i}` });
    else await store.create(pet);
  }
  await store.close();
  const [check, schedule, fileDrill, databaseDrill] = ["**Check a backup**", "**Scheduled backups.**", "**A restore drill.**"].flatMap((heading, i) => {
    const found = [...part(heading).matchAll(/```sh\n([\s\S]*?)\n```/g)].map((match) => match[1]!.split("\n"));
    expect([heading, found.length]).toEqual([heading, i === 2 ? 2 : 1]);
    return found;
  });
  const backedUp = await runCommand(inFolder(schedule![0]!, folder), folder, "");
  expect(backedUp).toMatch(/checked \S+\/backups\/pets-\S+\.jsonl: 12 pets \(last id 12\), 3 idempotency keys younger than 24 hours/);
  expect(await runCommand(inFolder(check![0]!.replace("backup.jsonl", "backups/latest.jsonl"), folder), folder, "")).toContain("12 pets (last id 12)");
  for (const line of fileDrill!) await runCommand(inFolder(line, folder), folder, "");
  // PostgreSQL's drill, into a database of the test server's: the page's role and host are its.
  const admin = new URL(await (await postgresServer()).createDatabase());
  const drill = `drill_${process.pid}`;
  const drillUrl = Object.assign(new URL(admin.href), { pathname: `/${drill}` }).href;
  for (const line of databaseDrill!) {
    const statement = /^sudo -u postgres psql -c "([^"]+)"$/.exec(line)?.[1];
    if (statement === undefined) {
      await runCommand(inFolder(line.replaceAll("postgres://animal_store:change-me@127.0.0.1:5432/pets_drill", drillUrl), folder), folder, "");
      continue;
    }
    const superuser = new Bun.SQL(admin.href, { max: 1 });
    await superuser.unsafe(statement.replace("pets_drill", drill).replace("OWNER animal_store", "OWNER postgres"));
    await superuser.close();
  }
}, 120_000);

test("From code: the example prints what its comment says", async () => {
  const code = /### From code[\s\S]*?```ts\n([\s\S]*?)\n```/.exec(section)?.[1] ?? "";
  const expected = /\/\/ (\{.*\})$/m.exec(code)?.[1] ?? "no comment";
  const file = join(tempFolder(), "move.ts");
  writeFileSync(file, code.replace('from "animal-store"', `from ${JSON.stringify(resolve("src/mod.ts"))}`));
  const child = Bun.spawn([process.execPath, file], { stdout: "pipe" });
  // Bun prints an object over several lines, with a comma after the last member.
  const printed = (await new Response(child.stdout).text()).replace(/\s+/g, " ").replace(", }", " }").trim();
  expect(await child.exited).toBe(0);
  expect(printed).toBe(expected);
});
