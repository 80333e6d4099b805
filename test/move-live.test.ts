/**
 * @module
 * A live move, as docs/stores.md's "Moving to PostgreSQL" prints it: one instance on a JSON file with
 * 10,000 pets, keyed creates in the last hour and a client holding a cursor in the middle, stopped,
 * moved by the page's pipe, and served by two instances on PostgreSQL, where the retries replay. And an export taken from a
 * running server under create load.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Pet } from "../src/mod.ts";
import type { ServerProcess } from "./server-process.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { shell } from "./shell.ts";
import { tempDataFile } from "./temp.ts";

const KEY = "move-live-key";
const AUTH = { authorization: `Bearer ${KEY}` };
const REQUEST_TIMEOUT_MS = 20_000;
const PAGE_COMMAND = /```sh\n(npm start --silent -- export --data-file data\/pets\.json \| [^\n]+)\n```/.exec(readFileSync("docs/stores.md", "utf8"))?.[1] ?? "no command on the page";

/** POST /pets; resolves with the status, the pet and whether it was a replay. */
async function create(base: string, name: string, key?: string): Promise<{ status: number; pet: Pet; replayed: boolean }> {
  const response = await fetch(`${base}/pets`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json", ...(key === undefined ? {} : { "idempotency-key": key }) },
    body: JSON.stringify({ name, categoryId: 1 }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: response.status, pet: (await response.json()) as Pet, replayed: response.headers.get("idempotent-replayed") === "true" };
}

/** Every pet a server lists, following `rel="next"` from the first page. */
async function listAll(base: string): Promise<Pet[]> {
  const seen: Pet[] = [];
  let next: string | undefined = `${base}/pets?limit=100`;
  while (next !== undefined) {
    const response: Response = await fetch(next, { headers: AUTH, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    expect(response.status).toBe(200);
    seen.push(...((await response.json()) as Pet[]));
    next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
  }
  return seen;
}

test("a live instance on a JSON file moves to two instances on PostgreSQL with the page's commands", async () => {
  const path = tempDataFile();
  const single = await startServer("bun", { DATA_FILE: path, API_KEYS: KEY });
  let before: Pet[];
  let cursor: string;
  const keyed: Pet[] = [];
  try {
    const statuses = (await Promise.all(Array.from({ length: 20 }, async (_, worker) => {
      const answers: number[] = [];
      for (let i = 0; i < 500; i++) answers.push((await create(single.url, `w${worker} p${i}`)).status);
      return answers;
    }))).flat();
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    for (let i = 0; i < 20; i++) keyed.push((await create(single.url, `order ${i}`, `order-${i}`)).pet);
    // A client that walked to the middle holds its next link.
    const page = await fetch(`${single.url}/pets?limit=100&after=4900`, { headers: AUTH });
    cursor = new URL(/<([^>]+)>;\s*rel="next"/.exec(page.headers.get("link") ?? "")![1]!).pathname + "?limit=100&after=5000";
    before = await listAll(single.url);
  } finally {
    expect(await single.stop("SIGTERM")).toBe(0); // the write pause starts here
  }
  expect(before.length).toBe(10_020);

  const url = await (await postgresServer()).createDatabase();
  const moved = await shell(PAGE_COMMAND.replace("data/pets.json", path).replace(/postgres:\/\/\S+/, url));
  const output = moved.stdout + moved.stderr;
  expect(new Set([...output.matchAll(/sha256 ([0-9a-f]{64})/g)].map((match) => match[1])).size).toBe(1);
  expect(output).toContain("20 idempotency keys younger than 24 hours came along");

  const instances: ServerProcess[] = [];
  try {
    for (const runtime of ["bun", "node"] as const) instances.push(await startServer(runtime, { STORE: "postgres", DATABASE_URL: url, API_KEYS: KEY }));
    const [one, two] = instances.map((instance) => instance.url) as [string, string];
    expect(await listAll(one)).toEqual(before);
    expect(await listAll(two)).toEqual(before);
    const resumed = await fetch(`${new URL(two).origin}${cursor}`, { headers: AUTH });
    expect(((await resumed.json()) as Pet[]).map((pet) => pet.id)).toEqual(before.slice(5000, 5100).map((pet) => pet.id));
    // A client retrying a create it sent before the move gets its first pet back, from either instance.
    for (const [base, i] of [[one, 0], [two, 0], [two, 19]] as const) {
      const retry = await create(base, `order ${i}`, `order-${i}`);
      expect({ status: retry.status, replayed: retry.replayed, pet: retry.pet }).toEqual({ status: 201, replayed: true, pet: keyed[i]! });
    }
    expect((await create(two, "new")).pet.id).toBeGreaterThan(before.at(-1)!.id);
  } finally {
    await Promise.all(instances.map((instance) => instance.stop("SIGKILL")));
  }
}, 240_000);

test("an export from a running server under create load misses no pet below its last, and the server answers every create", async () => {
  const path = tempDataFile();
  const server = await startServer("bun", { DATA_FILE: path, API_KEYS: KEY });
  try {
    let creating = true;
    const creators = Array.from({ length: 8 }, async (_, worker) => {
      const statuses: number[] = [];
      for (let i = 0; creating; i++) statuses.push((await create(server.url, `w${worker} p${i}`)).status);
      return statuses;
    });
    await Bun.sleep(1000);
    const exported = (await shell(`npm start --silent -- export --data-file ${path}`)).stdout;
    await Bun.sleep(500);
    creating = false;
    const statuses = (await Promise.all(creators)).flat();
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    const pets = exported.split("\n").filter((line) => line.startsWith('{"id":')).map((line) => JSON.parse(line) as Pet);
    expect(exported).toContain(`{"end":{"count":${pets.length},"lastId":${pets.length},`);
    expect(pets.length).toBeGreaterThan(0);
    expect(pets.map((pet) => pet.id)).toEqual(Array.from({ length: pets.length }, (_, i) => i + 1)); // no hole
    expect(statuses.length).toBeGreaterThan(pets.length); // creates went on after the snapshot
    expect((await listAll(server.url)).slice(0, pets.length)).toEqual(pets);
  } finally {
    expect(await server.stop("SIGTERM")).toBe(0);
  }
}, 120_000);
