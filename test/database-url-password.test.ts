/**
 * @module
 * A database password holding `@`, `:`, `/` (or `%`, `?`, `#`) goes into `DATABASE_URL` percent-encoded,
 * as docs/running.md says: given so in the URL file, the server connects with it on every runtime (Bun's
 * own client, postgres.js on Deno and Node), against a role whose password the database checks.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Runtime } from "./server-process.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { tempFolder } from "./temp.ts";

const PASSWORD = "p@ss:w/rd%?#";
const AUTH = { authorization: "Bearer k" };

/** A URL file as a secret is given: mode 600. */
function urlFile(url: string): string {
  const path = join(tempFolder(), "database-url");
  writeFileSync(path, `${url}\n`, { mode: 0o600 });
  return path;
}

/** The URL of a new database whose role's password is `PASSWORD`, written into it as `password` says. */
async function databaseUrl(password: (raw: string) => string): Promise<string> {
  const { user, host, database } = await (await postgresServer()).createDatabaseWithPassword(PASSWORD);
  return `postgres://${user}:${password(PASSWORD)}@${host}/${database}`;
}

describe("a database password with @, : and / in DATABASE_URL_FILE", () => {
  test.each<Runtime>(["bun", "deno", "node"])("percent-encoded, the server on %s connects with it and stores a pet", async (runtime) => {
    await using server = await startServer(runtime, { STORE: "postgres", DATABASE_URL_FILE: urlFile(await databaseUrl(encodeURIComponent)), API_KEYS: "k" });
    const created = await fetch(`${server.url}/pets`, { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' });
    expect(created.status).toBe(201);
    expect((await fetch(`${server.url}/pets/1`, { headers: AUTH })).status).toBe(200);
    expect(server.output()).not.toContain(encodeURIComponent(PASSWORD));
  }, 30_000);

  test("the database checks the password: the same URL with another one does not start the server", async () => {
    const url = await databaseUrl(() => "wrong");
    const started = startServer("bun", { STORE: "postgres", DATABASE_URL_FILE: urlFile(url), API_KEYS: "k" });
    await expect(started).rejects.toThrow(/password authentication failed/);
  }, 30_000);
});
