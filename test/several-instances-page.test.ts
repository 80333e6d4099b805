/**
 * @module
 * The "Running several instances" page, followed as written: its `psql` commands make the role and
 * database, two instances start on its `DATABASE_URL` (the test server's address in place of its
 * host), and the ids have the gaps the page says they have.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { ServerProcess } from "./server-process.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";

const PAGE = "docs/stores.md";
const section = readFileSync(PAGE, "utf8").split("## Running several instances")[1]?.split("\n## ")[0] ?? "";
/** The SQL of each `sudo -u postgres psql -c "…"` on the page, in order. */
const statements = [...section.matchAll(/sudo -u postgres psql -c "([^"]+)"/g)].map((match) => match[1]!);
const pageUrl = /DATABASE_URL=(postgres:\/\/\S+)/.exec(section)?.[1] ?? "no DATABASE_URL on the page";
const KEY = "instances-page-key";

/** Answers a create on `base`, with an idempotency key when one is given. */
async function create(base: string, name: string, idempotencyKey?: string): Promise<{ status: number; id: number; replayed: string | null }> {
  const response = await fetch(`${base}/pets`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }) },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
  return { status: response.status, id: ((await response.json()) as { id: number }).id, replayed: response.headers.get("idempotent-replayed") };
}

test("the page's psql commands make a role and database two instances share, and a replay leaves the gap the page names", async () => {
  expect(statements.map((statement) => statement.split(" ").slice(0, 2).join(" "))).toEqual(["CREATE ROLE", "CREATE DATABASE"]);
  const admin = new URL(await (await postgresServer()).createDatabase());
  const superuser = new Bun.SQL(admin.href, { max: 1 });
  try {
    for (const statement of statements) await superuser.unsafe(statement);
  } finally {
    await superuser.close();
  }
  const url = new URL(pageUrl);
  url.host = admin.host;
  const instances: ServerProcess[] = [];
  try {
    for (const runtime of ["bun", "node"] as const) instances.push(await startServer(runtime, { STORE: "postgres", DATABASE_URL: url.href, API_KEYS: KEY }));
    const [one, two] = instances.map((instance) => instance.url);
    expect(await create(one!, "Rex", "order-1")).toEqual({ status: 201, id: 1, replayed: null });
    expect(await create(two!, "Rex", "order-1")).toEqual({ status: 201, id: 1, replayed: "true" });
    // The replay took id 2 and left it unused.
    expect(await create(two!, "Fido")).toEqual({ status: 201, id: 3, replayed: null });
    expect((await fetch(`${one}/pets/3`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
  } finally {
    await Promise.all(instances.map((instance) => instance.stop("SIGKILL")));
  }
}, 60_000);
