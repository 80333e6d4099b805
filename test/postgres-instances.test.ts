/**
 * @module
 * Several standalone servers (Bun, Deno and Node) on one PostgreSQL database, as behind a load
 * balancer: creates on every instance, syncing clients that follow pages and resume from their
 * last cursor, an instance killed with -9, and the database restarted under load.
 */
import { describe, expect, test } from "bun:test";
import type { Pet } from "../src/mod.ts";
import type { Runtime, ServerProcess } from "./server-process.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";

const KEY = "instances-key";
const AUTH = { authorization: `Bearer ${KEY}` };
const RUNTIMES: readonly Runtime[] = ["bun", "deno", "node"];
/** No request may take longer than this, whatever the database does. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Starts one server per runtime on the database at `url`. */
function startInstances(url: string): Promise<ServerProcess[]> {
  return Promise.all(RUNTIMES.map((runtime) => startServer(runtime, { STORE: "postgres", DATABASE_URL: url, API_KEYS: KEY })));
}

async function stopAll(servers: readonly ServerProcess[]): Promise<void> {
  await Promise.all(servers.map((server) => server.stop("SIGKILL")));
}

/** Creates one pet; resolves with the answer's status and, for a 201, the pet. */
async function create(base: string, name: string): Promise<Answer> {
  const response = await fetch(`${base}/pets`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json" },
    body: JSON.stringify({ name, categoryId: 1, status: "available" }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return response.status === 201 ? { status: 201, pet: (await response.json()) as Pet } : { status: response.status };
}

/** An answer to a create: its status (0 when the connection failed) and, for a 201, the pet. */
type Answer = { status: number; pet?: Pet };

/** Keeps creating on `base` until `running()` turns false, handing every answer to `onAnswer`. */
async function keepCreating(base: string, name: string, running: () => boolean, onAnswer: (answer: Answer) => void): Promise<void> {
  for (let i = 0; running(); i++) {
    const answer = await create(base, `${name}-${i}`).catch((): Answer => ({ status: 0 }));
    onAnswer(answer);
    if (answer.status !== 201) await Bun.sleep(20);
  }
}

/** Records answers: every acknowledged pet and every status, in the order they came. */
function recorder(): { acknowledged: Pet[]; statuses: number[]; record: (answer: Answer) => void } {
  const acknowledged: Pet[] = [];
  const statuses: number[] = [];
  return {
    acknowledged,
    statuses,
    record(answer) {
      statuses.push(answer.status);
      if (answer.pet !== undefined) acknowledged.push(answer.pet);
    },
  };
}

/** Every pet an instance lists, following `rel="next"` from the first page. */
async function listAll(base: string): Promise<Pet[]> {
  const follower = syncingClient(base);
  await follower.sync();
  return follower.seen;
}

/**
 * A client that syncs as docs/stores.md tells it to: follow `rel="next"` to the end, keep the last
 * cursor, and later resume from it to fetch what is new.
 */
function syncingClient(base: string): { seen: Pet[]; sync(): Promise<void> } {
  const seen: Pet[] = [];
  let cursor = 0;
  return {
    seen,
    async sync() {
      let next: string | undefined = `${base}/pets?limit=100&after=${cursor}`;
      while (next !== undefined) {
        const response: Response = await fetch(next, { headers: AUTH, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        if (response.status !== 200) throw new Error(`GET ${next} answered ${response.status}`);
        const page = (await response.json()) as Pet[];
        seen.push(...page);
        cursor = page.at(-1)?.id ?? cursor;
        next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
      }
    },
  };
}

function ids(pets: readonly Pet[]): number[] {
  return pets.map((pet) => pet.id);
}

describe("several instances on one PostgreSQL database", () => {
  test("syncing clients see every acknowledged pet exactly once, in id order, while three instances create", async () => {
    const url = (await (await postgresServer()).createDatabase()).replace("postgres@", "postgres:s3cret-password@");
    const servers = await startInstances(url);
    try {
      for (const server of servers) {
        expect(server.output()).toMatch(/opened PostgreSQL database "test_\d+_\d+" on 127\.0\.0\.1:\d+/);
        expect(server.output()).not.toContain("s3cret-password");
      }
      let creating = true;
      let synced = false;
      const { acknowledged, statuses, record } = recorder();
      const creators = servers.flatMap((server, s) =>
        Array.from({ length: 6 }, (_, w) => keepCreating(server.url, `s${s}w${w}`, () => creating, record)),
      );
      const followers = servers.map(async (server) => {
        const client = syncingClient(server.url);
        while (!synced) await client.sync();
        await client.sync(); // once more after the last 201
        return client.seen;
      });
      await Bun.sleep(4000);
      creating = false;
      await Promise.all(creators);
      synced = true;
      const seenByFollowers = await Promise.all(followers);

      expect(statuses.filter((status) => status !== 201)).toEqual([]);
      const acknowledgedIds = ids(acknowledged).sort((a, b) => a - b);
      expect(new Set(acknowledgedIds).size).toBe(acknowledgedIds.length);
      expect(acknowledgedIds.length).toBeGreaterThan(200);
      for (const seen of seenByFollowers) {
        const seenIds = ids(seen);
        expect(seenIds).toEqual([...seenIds].sort((a, b) => a - b)); // ascending
        expect(new Set(seenIds).size).toBe(seenIds.length); // no id twice
        const missing = acknowledgedIds.filter((id) => !seenIds.includes(id));
        expect(missing).toEqual([]);
      }
      for (const server of servers) {
        const sample = acknowledged[Math.floor(Math.random() * acknowledged.length)]!;
        const response = await fetch(`${server.url}/pets/${sample.id}`, { headers: AUTH });
        expect(await response.json()).toEqual(sample);
      }
    } finally {
      await stopAll(servers);
    }
  }, 40_000);

  test("kill -9 of one instance during creates loses no acknowledged pet, and the others keep serving", async () => {
    const servers = await startInstances(await (await postgresServer()).createDatabase());
    const [victim, ...survivors] = servers as [ServerProcess, ...ServerProcess[]];
    try {
      let creating = true;
      let killed = false;
      const acknowledged: Pet[] = [];
      const afterKill: number[] = [];
      const creators = servers.flatMap((server, s) =>
        Array.from({ length: 4 }, (_, w) =>
          keepCreating(server.url, `s${s}w${w}`, () => creating, (answer) => {
            if (answer.pet !== undefined) acknowledged.push(answer.pet);
            if (killed && server !== victim) afterKill.push(answer.status);
          }),
        ),
      );
      await Bun.sleep(800);
      await victim.stop("SIGKILL");
      killed = true;
      await Bun.sleep(1000);
      creating = false;
      await Promise.all(creators);

      expect(afterKill.length).toBeGreaterThan(20);
      expect(afterKill.filter((status) => status !== 201)).toEqual([]);
      for (const survivor of survivors) {
        const listed = ids(await listAll(survivor.url));
        expect(ids(acknowledged).filter((id) => !listed.includes(id))).toEqual([]);
      }
    } finally {
      await stopAll(servers);
    }
  }, 30_000);

  test("while the database restarts, creates answer 503 and never hang, then succeed again without restarting the servers", async () => {
    const database = await postgresServer();
    const servers = await startInstances(await database.createDatabase());
    try {
      let creating = true;
      const { acknowledged, statuses, record } = recorder();
      const creators = servers.flatMap((server, s) =>
        Array.from({ length: 3 }, (_, w) => keepCreating(server.url, `s${s}w${w}`, () => creating, record)),
      );
      await Bun.sleep(500);
      const { downFrom, downTo } = await database.whileStopped(async () => {
        await Bun.sleep(200); // answers to creates sent before the stop may still arrive
        const downFrom = statuses.length;
        await Bun.sleep(1000);
        return { downFrom, downTo: statuses.length };
      });
      await Bun.sleep(1500);
      creating = false;
      await Promise.all(creators);

      const downStatuses = statuses.slice(downFrom, downTo);
      expect(downStatuses.length).toBeGreaterThan(0);
      expect(new Set(downStatuses)).toEqual(new Set([503]));
      expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
      for (const server of servers) expect((await create(server.url, "after the restart")).status).toBe(201);
      const listed = ids(await listAll(servers[0]!.url));
      expect(ids(acknowledged).filter((id) => !listed.includes(id))).toEqual([]);
    } finally {
      await stopAll(servers);
    }
  }, 40_000);
});
