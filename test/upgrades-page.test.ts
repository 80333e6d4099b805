/**
 * @module
 * docs/stores.md's "Upgrades and migrations", followed as printed on the test's PostgreSQL server (its
 * host, and roles and a database of the test's own, in place of the page's): the dry run changes
 * nothing and `migrate` applies every step; the role that may only read and write, made as the page
 * makes it, serves an instance with `MIGRATE=off` and may not change a table.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { SCHEMA_VERSION } from "../adapters/postgres-store/mod.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { shell } from "./shell.ts";

const section = readFileSync("docs/stores.md", "utf8").split("## Upgrades and migrations")[1]?.split("\n## ")[0] ?? "";
const [migrateBlock = [], roleBlock = []] = [...section.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((match) => match[1]!.split("\n"));

/** A database on the test server with an owner role, and the page's names for them swapped for the test's in `line`. */
async function pageDatabase(): Promise<{ admin: string; rename: (line: string) => string }> {
  const url = new URL(await (await postgresServer()).createDatabase());
  const [database, owner, app] = [url.pathname.slice(1), `owner_${process.pid}_${url.pathname.slice(1)}`, `app_${process.pid}_${url.pathname.slice(1)}`];
  const admin = new Bun.SQL(url.href, { max: 1 });
  await admin.unsafe(`create role ${owner} login password 'change-me'; alter database ${database} owner to ${owner}; alter schema public owner to ${owner}`);
  await admin.close();
  const rename = (line: string) => line
    .replaceAll("127.0.0.1:5432", url.host)
    .replaceAll("animal_store_app", app)
    .replaceAll("animal_store", owner)
    .replace(/\/pets\b/g, `/${database}`)
    .replace("-d pets ", `-d ${database} `);
  return { admin: url.href, rename };
}

/** Runs a page line: `sudo -u postgres psql [-d DB] -c "SQL"` as the test server's superuser, anything else in a shell. */
async function runLine(line: string, admin: string): Promise<string> {
  const psql = /^sudo -u postgres psql (?:-d (\S+) )?-c "([^"]+)"$/.exec(line);
  if (psql === null) {
    const { stdout, stderr } = await shell(line);
    return stdout + stderr;
  }
  const sql = new Bun.SQL(Object.assign(new URL(admin), { pathname: `/${psql[1] ?? "postgres"}` }).href, { max: 1 });
  try {
    await sql.unsafe(psql[2]!);
  } finally {
    await sql.close();
  }
  return "";
}

test("the printed migrate lines: the dry run prints the SQL and changes nothing, migrate applies every step", async () => {
  expect(migrateBlock.map((line) => line.split(" -- ")[1]?.split(" --store")[0])).toEqual(["migrate --dry-run", "migrate"]);
  const { admin, rename } = await pageDatabase();
  const dry = await runLine(rename(migrateBlock[0]!), admin);
  expect(dry).toContain(`schema version 0; migrate would take it to schema version ${SCHEMA_VERSION}, running:`);
  expect(dry).toContain("-- nothing was changed (--dry-run)");
  expect(await runLine(rename(migrateBlock[1]!), admin)).toContain(`is at schema version ${SCHEMA_VERSION} (was 0)`);
}, 60_000);

test("the printed read-and-write role serves an instance with MIGRATE=off, and may not change a table", async () => {
  expect(roleBlock.map((line) => line.split(" ").slice(0, 5).join(" "))).toEqual([
    "sudo -u postgres psql -c",
    "sudo -u postgres psql -d",
    "sudo -u postgres psql -d",
    "npm start --silent -- migrate",
    expect.stringMatching(/^export STORE=postgres MIGRATE=off DATABASE_URL=/),
  ]);
  const { admin, rename } = await pageDatabase();
  for (const line of roleBlock.slice(0, -1)) await runLine(rename(line), admin);
  const settings = Object.fromEntries(rename(roleBlock.at(-1)!).replace(/^export /, "").split(" ").map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string]));
  expect(Object.keys(settings)).toEqual(["STORE", "MIGRATE", "DATABASE_URL"]);
  await using server = await startServer("bun", { ...settings, API_KEYS: "page-key" });
  const created = await fetch(`${server.url}/pets`, { method: "POST", headers: { authorization: "Bearer page-key", "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' });
  expect(created.status).toBe(201);
  const app = new Bun.SQL(settings["DATABASE_URL"]!, { max: 1 });
  try {
    expect(await app`alter table pets add column colour text`.then(() => "altered", (error: Error) => error.message)).toContain("must be owner of table pets");
    expect(await app`create table intruder (a int)`.then(() => "made", (error: Error) => error.message)).toContain("permission denied for schema public");
  } finally {
    await app.close();
  }
}, 60_000);
