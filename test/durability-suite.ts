/**
 * @module
 * What the JSON-file store promises over the wire, with real processes: pets survive restarts and
 * `kill -9`, and a full disk never costs an acknowledged pet. Run for every runtime by `http.test.ts`.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Pet } from "../src/mod.ts";
import type { Runtime, ServerProcess } from "./server-process.ts";
import { startServer } from "./server-process.ts";
import { tempDataFile } from "./temp.ts";

const KEY = "durability-key";
const HEADER = '{"format":"animal-store-pets","version":1}';
const AUTH = { authorization: `Bearer ${KEY}` };
const JSON_AUTH = { ...AUTH, "content-type": "application/json" };

/** Every pet a server lists, page by page, asked for with `auth`. */
export async function allPets(base: string, auth: Record<string, string> = AUTH): Promise<Pet[]> {
  const pets: Pet[] = [];
  for (;;) {
    const page = (await (await fetch(`${base}/pets?limit=100&after=${pets.at(-1)?.id ?? 0}`, { headers: auth })).json()) as Pet[];
    pets.push(...page);
    if (page.length < 100) return pets;
  }
}

function create(base: string, pet: object): Promise<Response> {
  return fetch(`${base}/pets`, { method: "POST", headers: JSON_AUTH, body: JSON.stringify(pet) });
}

async function createPets(base: string, count: number, prefix = "kept"): Promise<Pet[]> {
  const pets: Pet[] = [];
  for (let i = 0; i < count; i++) {
    const response = await create(base, { name: `${prefix} ${i}`, categoryId: i });
    expect(response.status).toBe(201);
    pets.push((await response.json()) as Pet);
  }
  return pets;
}

/** Loaded into a server to freeze it between the store's lock check and its write (see the fixture). */
const FREEZE_BEFORE_WRITE = "./test/fixtures/freeze-before-write.ts";

/** Resolves once `server` has printed `text`; rejects after 10 s. */
async function printed(server: ServerProcess, text: string): Promise<void> {
  for (const started = Date.now(); !server.output().includes(text); await Bun.sleep(20)) {
    if (Date.now() - started > 10_000) throw new Error(`the server never printed "${text}":\n${server.output()}`);
  }
}

/** Kills a server that a failed test left running; one already stopped is left alone. */
async function kill(server: ServerProcess | undefined): Promise<void> {
  try {
    await server?.stop("SIGKILL");
  } catch {
    // already gone
  }
}

const RUNTIMES: readonly Runtime[] = ["bun", "deno", "node"];

/**
 * Makes a folder read-only, or writable again, even for root, whom permission bits do not stop:
 * as root with the immutable attribute (`chattr +i`), else by its mode.
 */
function makeReadOnly(folder: string, readOnly: boolean): void {
  if (process.getuid?.() === 0) {
    const result = Bun.spawnSync(["chattr", readOnly ? "+i" : "-i", folder]);
    if (result.exitCode !== 0) throw new Error(`chattr failed on ${folder}: ${result.stderr}`);
  } else {
    chmodSync(folder, readOnly ? 0o555 : 0o755);
  }
}

/** The 503 answer to a create, as an error object. */
async function refusedCreate(base: string): Promise<{ status: number; code: string; message: string }> {
  const response = await create(base, { name: "refused", categoryId: 1 });
  return { status: response.status, ...((await response.json()) as { code: string; message: string }) };
}

/** Registers the durability tests for one runtime. */
export function durabilitySuite(runtime: Runtime): void {
  describe(`JSON-file store durability on ${runtime}`, () => {
    test("pets survive a graceful restart, and new ids continue after them", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      await using first = await startServer(runtime, env);
      const created = (await (await create(first.url, { name: "Rex", categoryId: 1, status: "sold" })).json()) as Pet;
      expect(await first.stop("SIGTERM")).toBe(0);
      const second = await startServer(runtime, env);
      try {
        expect(await allPets(second.url)).toEqual([created]);
        const next = (await (await create(second.url, { name: "Tom", categoryId: 2 })).json()) as Pet;
        expect(next.id).toBeGreaterThan(created.id);
      } finally {
        await second.stop("SIGKILL");
      }
    }, 30_000);

    test("after kill -9 at any moment, every acknowledged pet is there and ids never collide", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      const acknowledged = new Map<number, Pet>();
      for (let round = 0; round < 3; round++) {
        await using server = await startServer(runtime, env);
        const known = await allPets(server.url);
        for (const pet of acknowledged.values()) expect(known).toContainEqual(pet);
        let running = true;
        const worker = async (w: number) => {
          for (let i = 0; running; i++) {
            const pet = { name: `r${round}w${w}i${i}`, categoryId: i, status: "pending" };
            const response = await create(server.url, pet).catch(() => undefined);
            if (response?.status === 201) {
              const stored = (await response.json().catch(() => undefined)) as Pet | undefined;
              if (stored !== undefined) {
                expect(acknowledged.has(stored.id)).toBe(false);
                acknowledged.set(stored.id, stored);
              }
            }
          }
        };
        const workers = Array.from({ length: 8 }, (_, w) => worker(w));
        await Bun.sleep(150 + Math.random() * 300);
        await server.stop("SIGKILL");
        running = false;
        await Promise.all(workers);
      }
      const last = await startServer(runtime, env);
      try {
        const pets = await allPets(last.url);
        for (const pet of acknowledged.values()) expect(pets).toContainEqual(pet);
        expect(acknowledged.size).toBeGreaterThan(0);
      } finally {
        await last.stop("SIGKILL");
      }
    }, 60_000);

    test("a full disk answers 503 without losing or tearing any acknowledged pet", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      await using full = await startServer(runtime, env, { maxFileKiB: 4 });
      const acknowledged: Pet[] = [];
      let refused: Response | undefined;
      for (let i = 0; i < 200 && refused === undefined; i++) {
        const batch = await Promise.all(Array.from({ length: 4 }, (_, j) => create(full.url, { name: `pet number ${i}-${j}`, categoryId: i })));
        for (const response of batch) {
          if (response.status === 201) acknowledged.push((await response.json()) as Pet);
          else refused = response;
        }
      }
      expect(acknowledged.length).toBeGreaterThan(10);
      expect(refused?.status).toBe(503);
      const error = (await refused!.json()) as { code: string; message: string };
      expect(error.code).toBe("service_unavailable");
      expect(error.message).toContain("the data file could not be written");
      expect((await create(full.url, { name: "later", categoryId: 1 })).status).toBe(503);
      expect((await fetch(`${full.url}/pets?limit=1`, { headers: AUTH })).status).toBe(200);
      await full.stop("SIGTERM");

      const content = readFileSync(env.DATA_FILE, "utf8");
      expect(content.endsWith("\n")).toBe(true);
      expect(statSync(env.DATA_FILE).size).toBeLessThanOrEqual(4096);
      const restarted = await startServer(runtime, env);
      try {
        const pets = await allPets(restarted.url);
        for (const pet of acknowledged) expect(pets).toContainEqual(pet);
        expect((await create(restarted.url, { name: "after", categoryId: 1 })).status).toBe(201);
        expect(restarted.output()).not.toContain("torn");
      } finally {
        await restarted.stop("SIGKILL");
      }
    }, 30_000);

    test("after SIGKILL of its whole process group (npm start style), it is back at once, 10 times in a row: the lock is taken over, not waited out", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      const created: Pet[] = [];
      let inode: number | undefined;
      for (let round = 0; round < 10; round++) {
        await using server = await startServer(runtime, env, { processGroup: true });
        // A lock waited out for its 5 s lease gives the data file a new inode (the old owner may still
        // run); one taken over at once keeps it. Unlike a start's time, that does not depend on the load.
        inode ??= statSync(env.DATA_FILE).ino;
        expect(statSync(env.DATA_FILE).ino).toBe(inode);
        expect(await allPets(server.url)).toEqual(created);
        created.push((await (await create(server.url, { name: `round ${round}`, categoryId: round })).json()) as Pet);
        await server.stop("SIGKILL");
      }
    }, 120_000);

    test.each([
      ["a data file deleted", (file: string) => unlinkSync(file), "was deleted"],
      ["a data folder removed", (file: string) => rmSync(dirname(file), { recursive: true }), "was deleted (or its folder removed)"],
    ] as const)("%s while it runs: creates answer 503 saying so, and a restart finds every acknowledged pet", async (_, remove, says) => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      await using server = await startServer(runtime, env);
      const acknowledged = await createPets(server.url, 3);
      remove(env.DATA_FILE);
      const refused = await refusedCreate(server.url);
      expect(refused).toMatchObject({ status: 503, code: "service_unavailable" });
      expect(refused.message).toContain(`the data file ${env.DATA_FILE} ${says}`);
      expect(refused.message).toContain("restart the server");
      expect(await allPets(server.url)).toEqual(acknowledged);
      expect(await server.stop("SIGTERM")).toBe(0);
      const restarted = await startServer(runtime, env);
      try {
        expect(await allPets(restarted.url)).toEqual(acknowledged);
        const next = (await (await create(restarted.url, { name: "next", categoryId: 1 })).json()) as Pet;
        expect(next.id).toBe(acknowledged.length + 1);
      } finally {
        await restarted.stop("SIGKILL");
      }
    }, 30_000);

    test("a data file replaced by a copy renamed over it: creates answer 503, and every acknowledged pet is saved beside it", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      await using server = await startServer(runtime, env);
      const early = await createPets(server.url, 2);
      copyFileSync(env.DATA_FILE, `${env.DATA_FILE}.copy`);
      const late = await createPets(server.url, 2);
      renameSync(`${env.DATA_FILE}.copy`, env.DATA_FILE);
      const refused = await refusedCreate(server.url);
      expect(refused).toMatchObject({ status: 503, code: "service_unavailable" });
      expect(refused.message).toContain(`the data file ${env.DATA_FILE} was replaced by another file`);
      const saved = readdirSync(dirname(env.DATA_FILE)).find((name) => name.startsWith("pets.json.rescued-"));
      expect(refused.message).toContain(join(dirname(env.DATA_FILE), saved!));
      expect((await refusedCreate(server.url)).status).toBe(503);
      expect(await allPets(server.url)).toEqual([...early, ...late]);
      expect(await server.stop("SIGTERM")).toBe(0);
      const lines = readFileSync(join(dirname(env.DATA_FILE), saved!), "utf8").trim().split("\n").slice(1);
      expect(lines.map((line) => JSON.parse(line))).toEqual([...early, ...late]);
      expect(readFileSync(env.DATA_FILE, "utf8").trim().split("\n")).toHaveLength(1 + early.length);
    }, 30_000);

    test.each(RUNTIMES.filter((taker) => !(runtime === "deno" && taker === "deno")))(
      "frozen between its lock check and its write, then taken over by %s in another pid namespace: when it wakes it answers 503 and writes over nothing the new server acknowledged",
      async (taker) => {
        const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
        let frozen: ServerProcess | undefined;
        let taking: ServerProcess | undefined;
        try {
          frozen = await startServer(runtime, env, { preload: FREEZE_BEFORE_WRITE, ownPidNamespace: true });
          const before = await createPets(frozen.url, 2, "before the freeze");
          writeFileSync(`${env.DATA_FILE}.freeze`, "");
          const blocked = create(frozen.url, { name: "decided on before the freeze, written after it", categoryId: 9 });
          await printed(frozen, "frozen before a write");
          // The frozen server renews nothing: its lease runs out and the new server takes the lock over.
          taking = await startServer(taker, env, { ownPidNamespace: true });
          const later = await createPets(taking.url, 3, "acknowledged by the new server");
          unlinkSync(`${env.DATA_FILE}.freeze`);
          const woken = await blocked;
          expect(woken.status).toBe(503);
          expect(((await woken.json()) as { message: string }).message).toContain(`the lock file ${env.DATA_FILE}.lock was removed or taken over`);
          expect((await fetch(new URL("/health", frozen.url))).status).toBe(503);
          expect(await frozen.stop("SIGTERM")).toBe(0);
          expect(await taking.stop("SIGTERM")).toBe(0);
          const next = await startServer(runtime, env);
          try {
            expect(await allPets(next.url)).toEqual([...before, ...later]);
            expect(next.output()).not.toContain("torn");
          } finally {
            await next.stop("SIGKILL");
          }
        } finally {
          rmSync(`${env.DATA_FILE}.freeze`, { force: true });
          await kill(frozen);
          await kill(taking);
        }
      },
      60_000,
    );

    test("frozen between its lock check and its write, a second server that can tell frozen from dead (Deno by flock, Bun and Node by /proc) is refused, and the frozen one goes on", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      // flock reaches across pid namespaces; /proc only within one.
      const namespaces = { ownPidNamespace: runtime === "deno" };
      let frozen: ServerProcess | undefined;
      try {
        frozen = await startServer(runtime, env, { preload: FREEZE_BEFORE_WRITE, ...namespaces });
        writeFileSync(`${env.DATA_FILE}.freeze`, "");
        const blocked = create(frozen.url, { name: "written after the freeze", categoryId: 1 });
        await printed(frozen, "frozen before a write");
        const second = await startServer(runtime, env, namespaces).catch((error: Error) => error);
        expect(String(second)).toContain(`Cannot open ${env.DATA_FILE}: it is in use by process`);
        unlinkSync(`${env.DATA_FILE}.freeze`);
        expect((await blocked).status).toBe(201);
      } finally {
        rmSync(`${env.DATA_FILE}.freeze`, { force: true });
        await kill(frozen);
      }
    }, 30_000);

    test("a second server in another pid namespace, with the same pid there, is refused naming the first's process", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      const first = await startServer(runtime, env, { ownPidNamespace: true });
      try {
        const second = await startServer(runtime, env, { ownPidNamespace: true }).catch((error: Error) => error);
        expect(String(second)).toContain(`Cannot open ${env.DATA_FILE}: it is in use by process 2 `);
      } finally {
        await first.stop("SIGKILL");
      }
    }, 30_000);

    test("a lock file removed while it runs: /health answers 503 naming it before any create, and creates answer 503", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      const server = await startServer(runtime, env);
      try {
        const health = new URL("/health", server.url);
        expect((await fetch(health)).status).toBe(200);
        unlinkSync(`${env.DATA_FILE}.lock`);
        const answer = await fetch(health);
        expect(answer.status).toBe(503);
        expect(((await answer.json()) as { message: string }).message).toBe(
          `Cannot take writes: the lock file ${env.DATA_FILE}.lock was removed or taken over while this server ran, ` +
            `so another process may write ${env.DATA_FILE}; no pet is created until the server restarts`,
        );
        expect((await refusedCreate(server.url)).status).toBe(503);
      } finally {
        await server.stop("SIGKILL");
      }
    }, 30_000);

    test("SIGTERM with the data folder made read-only exits 0, warning that the lock file could not be removed", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      const server = await startServer(runtime, env);
      const folder = dirname(env.DATA_FILE);
      try {
        await createPets(server.url, 1);
        makeReadOnly(folder, true);
        expect(await server.stop("SIGTERM")).toBe(0);
        expect(server.output()).toContain(`the lock file ${env.DATA_FILE}.lock could not be removed`);
        expect(server.output()).toContain("stopped");
      } finally {
        makeReadOnly(folder, false);
        await kill(server);
      }
    }, 30_000);


    test("the data file keeps no digest of an API key that a dictionary could be tried against, and a keyed create still replays after a restart", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      const keyed = (base: string) =>
        fetch(`${base}/pets`, { method: "POST", headers: { ...JSON_AUTH, "idempotency-key": "retry-1" }, body: '{"name":"Rex","categoryId":1}' });
      await using first = await startServer(runtime, env);
      const created = (await (await keyed(first.url)).json()) as Pet;
      expect(await first.stop("SIGTERM")).toBe(0);
      // What anyone with the file and a list of guesses would compute for the right guess.
      const digest = createHash("sha256").update(KEY).digest("base64url");
      expect(readFileSync(env.DATA_FILE, "utf8")).not.toContain(digest);
      const second = await startServer(runtime, env);
      try {
        const retry = await keyed(second.url);
        expect(retry.status).toBe(201);
        expect(retry.headers.get("idempotent-replayed")).toBe("true");
        expect(await retry.json()).toEqual(created);
      } finally {
        await second.stop("SIGKILL");
      }
    }, 30_000);

    test("a data file written before the MAC, holding the API key's bare digest, still replays its keys", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      const digest = createHash("sha256").update(KEY).digest("base64url");
      const pet = { id: 1, name: "Rex", categoryId: 1 };
      writeFileSync(env.DATA_FILE, `${HEADER}\n${JSON.stringify({ ...pet, idempotency: { client: digest, key: "retry-1", at: Date.now() } })}\n`);
      const server = await startServer(runtime, env);
      try {
        const retry = await fetch(`${server.url}/pets`, { method: "POST", headers: { ...JSON_AUTH, "idempotency-key": "retry-1" }, body: '{"name":"Rex","categoryId":1}' });
        expect(retry.status).toBe(201);
        expect(retry.headers.get("idempotent-replayed")).toBe("true");
        expect(await retry.json()).toEqual(pet);
        expect(await allPets(server.url)).toEqual([pet]);
      } finally {
        await server.stop("SIGKILL");
      }
    }, 30_000);

    test("a pets.json.last-id at 2^53 − 1 (issue 48, item 1): creates answer 503 naming why, once in the log, reads go on, and the file opens again", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      writeFileSync(env.DATA_FILE, `${HEADER}\n{"id":1,"name":"first","categoryId":1}\n`);
      writeFileSync(`${env.DATA_FILE}.last-id`, "9007199254740991\n");
      for (let start = 0; start < 2; start++) {
        await using server = await startServer(runtime, env);
        for (let i = 0; i < 2; i++) {
          const refused = await refusedCreate(server.url);
          expect(refused).toMatchObject({ status: 503, code: "service_unavailable" });
          expect(refused.message).toContain("every id up to 9007199254740991 (2^53 − 1, the largest pet id) has been handed out");
        }
        expect((await allPets(server.url)).map((pet) => pet.id)).toEqual([1]);
        expect(server.output().split("has been handed out").length - 1).toBe(1); // one line in the log, not one per create
        expect(await server.stop("SIGTERM")).toBe(0);
        expect(readFileSync(`${env.DATA_FILE}.last-id`, "utf8")).toBe("9007199254740991\n");
      }
    }, 30_000);

    test("a FIFO at pets.json.last-id: the start is refused at once naming it, not hung (issue 48, item 9)", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      expect(Bun.spawnSync(["mkfifo", `${env.DATA_FILE}.last-id`]).exitCode).toBe(0);
      const failure = await startServer(runtime, env).catch((error: Error) => error);
      expect(String(failure)).toContain("exit code 1");
      expect(String(failure)).toContain(`Cannot open ${env.DATA_FILE}: ${env.DATA_FILE}.last-id: it is a FIFO, not a regular file`);
    }, 30_000);

    test("a second server on the same data file is refused with a clear message", async () => {
      const env = { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY };
      const first = await startServer(runtime, env);
      try {
        const second = await startServer(runtime, env).catch((error: Error) => error);
        expect(String(second)).toContain("exit code 1");
        expect(String(second)).toContain(`Cannot open ${env.DATA_FILE}: it is in use by process`);
      } finally {
        await first.stop("SIGKILL");
      }
    }, 30_000);
  });
}
