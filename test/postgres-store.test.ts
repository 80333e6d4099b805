/**
 * @module
 * The PostgreSQL store against a real server, with both clients it supports: Bun's `SQL` and
 * postgres.js.
 */
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import postgres from "postgres";
import type { PetStore } from "../src/mod.ts";
import { importPets, StoreUnavailableError } from "../src/mod.ts";
import { macUnder } from "../adapters/_client-mac.ts";
import type { SqlClient, SqlValue } from "../adapters/postgres-store/mod.ts";
import { openPostgresStore, SCHEMA_VERSION } from "../adapters/postgres-store/mod.ts";
import { postgresServer } from "./postgres-server.ts";
import { importChecks, storeChecks } from "../src/testing/mod.ts";
import { idempotentStoreContract } from "./store-idempotency-contract.ts";
import { importingStoreContract } from "./store-import-contract.ts";
import { reopenableStoreContract } from "./store-reopen-contract.ts";
import { storeContract } from "./store-contract.ts";
import { NODE_TS } from "./node-ts.ts";

/** The clients a user may pass in, each made for a database URL and closed by `end`. */
const CLIENTS = {
  "Bun SQL": (url: string, options: { bigint?: boolean } = {}) => {
    const sql = new SQL(url, { bigint: options.bigint ?? false });
    return { sql: sql satisfies SqlClient, end: () => sql.close() };
  },
  "postgres.js": (url: string, options: { bigint?: boolean } = {}) => {
    const types = options.bigint ? { bigint: postgres.BigInt } : {};
    const sql = postgres(url, { onnotice: () => {}, types });
    return { sql: sql satisfies SqlClient, end: () => sql.end({ timeout: 1 }) };
  },
} as const;

/** A store over a new database, whose `close` also closes its client. */
async function openStore(client: keyof typeof CLIENTS, options: { bigint?: boolean; timeoutMs?: number } = {}): Promise<PetStore> {
  const url = await (await postgresServer()).createDatabase();
  const { sql, end } = CLIENTS[client](url, options);
  const store = await openPostgresStore({ sql, logger: { warn: () => {} }, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) });
  return { ...store, close: async () => (await store.close(), await end()) };
}

for (const client of Object.keys(CLIENTS) as (keyof typeof CLIENTS)[]) {
  storeContract(`PostgreSQL (${client})`, () => openStore(client));
  idempotentStoreContract(`PostgreSQL (${client})`, () => openStore(client));
  importingStoreContract(`PostgreSQL (${client})`, () => openStore(client));
  reopenableStoreContract(`PostgreSQL (${client})`, async () => {
    const url = await (await postgresServer()).createDatabase();
    return {
      open: async () => {
        const { sql, end } = CLIENTS[client](url);
        const store = await openPostgresStore({ sql });
        return { ...store, close: async () => (await store.close(), await end()) };
      },
      removeNewest: async () => {
        const admin = new SQL(url);
        await admin`delete from pets where id = (select max(id) from pets)`;
        await admin.close();
      },
    };
  });

  describe(`PostgreSQL store with ${client}`, () => {
    test("a create whose name PostgreSQL cannot store (U+0000) fails alone; the creates batched with it are written", async () => {
      const store = await openStore(client);
      try {
        const key = { client: "c", key: "k-1" };
        // The first create goes out alone; the others wait for it and go out together, the bad one in the middle.
        const names = Array.from({ length: 12 }, (_, i) => (i === 6 ? "bad\u0000name" : `good ${i}`));
        const creates = names.map((name, i) => (i === 9 ? store.createWithKey!({ name, categoryId: 1 }, key).then(({ pet }) => pet) : store.create({ name, categoryId: 1 })));
        const outcomes = await Promise.allSettled(creates);
        expect(outcomes.map((outcome) => outcome.status)).toEqual(names.map((name) => (name.startsWith("bad") ? "rejected" : "fulfilled")));
        const bad = outcomes[6]!;
        const failure: unknown = bad.status === "rejected" ? bad.reason : undefined;
        expect(failure).not.toBeInstanceOf(StoreUnavailableError);
        const created = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
        expect(new Set(created.map((pet) => pet.id)).size).toBe(11);
        expect(await store.list({ limit: 100, after: 0 })).toEqual(created.toSorted((a, b) => a.id - b.id));
        // The keyed create's key was written with its pet.
        expect(await store.createWithKey!({ name: "good 9", categoryId: 1 }, key)).toEqual({ pet: created[8]!, replayed: true });
      } finally {
        await store.close();
      }
    });

    test("ids and categoryIds up to 2^53 - 1 come back as exact numbers, also when the client reads bigint as BigInt", async () => {
      for (const bigint of [false, true]) {
        const store = await openStore(client, { bigint });
        try {
          const pet = await store.create({ name: "big", categoryId: Number.MAX_SAFE_INTEGER });
          expect(await store.get(pet.id)).toEqual({ id: pet.id, name: "big", categoryId: Number.MAX_SAFE_INTEGER });
          expect(await store.list({ limit: 5, after: 0 })).toEqual([pet]);
        } finally {
          await store.close();
        }
      }
    });
  });
}

describe("the store contract with postgres.js on Node and Deno", () => {
  const RUNNERS = {
    node: [...NODE_TS],
    deno: ["node_modules/.bin/deno", "run", "--no-prompt", "--allow-net", "--allow-env", "--allow-read=."],
  };
  for (const [runtime, runner] of Object.entries(RUNNERS)) {
    test(`every check passes on ${runtime}`, async () => {
      const server = await postgresServer();
      const unused = () => Promise.reject(new Error("unused"));
      const checks = [...storeChecks(unused), ...importChecks(unused)];
      // One database per store a check opens: the round trip opens two.
      const urls = await Promise.all([...checks, "round trip's second store"].map(() => server.createDatabase()));
      const child = Bun.spawn([...runner, "test/fixtures/postgres-contract.ts", ...urls], { stdout: "pipe", stderr: "pipe" });
      const [output, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      expect(`${output}${errors}`).not.toContain("fail ");
      expect(output.match(/^pass /gm)?.length).toBe(checks.length);
      expect(code).toBe(0);
    }, 60_000);
  }
});

describe("PostgreSQL store schema", () => {
  test("two stores opened at once on a new database share one schema and one id sequence", async () => {
    const url = await (await postgresServer()).createDatabase();
    const clients = [new SQL(url), new SQL(url)];
    try {
      const [a, b] = await Promise.all(clients.map((sql) => openPostgresStore({ sql })));
      const first = await a!.create({ name: "a", categoryId: 1 });
      const second = await b!.create({ name: "b", categoryId: 2 });
      expect(second.id).toBe(first.id + 1);
      expect(await a!.list({ limit: 10, after: 0 })).toEqual([first, second]);
    } finally {
      await Promise.all(clients.map((sql) => sql.close()));
    }
  });

  test("a database with a newer schema version that older code may not use is refused, naming both versions", async () => {
    const url = await (await postgresServer()).createDatabase();
    const sql = new SQL(url);
    try {
      await openPostgresStore({ sql });
      await sql`update animal_store set schema_version = ${SCHEMA_VERSION + 1}, compatible_from = ${SCHEMA_VERSION + 1}`;
      const error = await openPostgresStore({ sql }).catch((failure: Error) => failure);
      expect(String(error)).toContain(`Cannot open the PostgreSQL store: the database is at schema version ${SCHEMA_VERSION + 1}`);
      expect(String(error)).toContain(`this one knows version ${SCHEMA_VERSION}, so upgrade it`);
    } finally {
      await sql.close();
    }
  });
});

describe("PostgreSQL store with a connection that never answers", () => {
  test("a create stuck on it answers 503 at its deadline, and later creates do not wait behind it", async () => {
    const sql = new SQL(await (await postgresServer()).createDatabase());
    let hangNextInsert = false;
    // A client whose next insert goes to a connection lost in a network partition: no answer, ever.
    const flaky = Object.assign(
      (strings: TemplateStringsArray, ...values: SqlValue[]) => {
        if (hangNextInsert && strings.join("").includes("insert into pets")) {
          hangNextInsert = false;
          return new Promise<never>(() => {});
        }
        return sql(strings, ...values);
      },
      { begin: sql.begin.bind(sql) },
    ) satisfies SqlClient;
    const store = await openPostgresStore({ sql: flaky, timeoutMs: 500 });
    try {
      hangNextInsert = true;
      const stuck = await store.create({ name: "stuck", categoryId: 1 }).catch((error: unknown) => error);
      expect(stuck).toBeInstanceOf(StoreUnavailableError);
      expect(String(stuck)).toContain("may or may not have been created");
      const next = await store.create({ name: "next", categoryId: 2 });
      expect(await store.get(next.id)).toEqual(next);
    } finally {
      await store.close();
      await sql.close();
    }
  });
});

describe("PostgreSQL store idempotency keys", () => {
  test("a retry on another store over the same database gets the pet the key produced, and nothing more is stored", async () => {
    const url = await (await postgresServer()).createDatabase();
    const clients = [new SQL(url), new SQL(url)];
    try {
      const [a, b] = await Promise.all(clients.map((sql) => openPostgresStore({ sql })));
      const key = { client: "digest-of-alice", key: "retry-1" };
      const [first, second] = await Promise.all([a!.createWithKey!({ name: "Rex", categoryId: 1 }, key), b!.createWithKey!({ name: "Rex", categoryId: 1 }, key)]);
      expect(second!.pet).toEqual(first!.pet);
      expect([first!.replayed, second!.replayed].sort()).toEqual([false, true]);
      expect(await b!.list({ limit: 10, after: 0 })).toEqual([first!.pet]);
    } finally {
      await Promise.all(clients.map((sql) => sql.close()));
    }
  });

  test("a JSON-file store's keys imported with its secret replay by the client's digest, on a store opened later too; without it they stay behind", async () => {
    const secret = "A".repeat(43);
    const clientMac = macUnder(secret)("digest-of-alice");
    const moved = [{ pet: { id: 4, name: "Rex", categoryId: 1 }, key: { clientMac, key: "order-1", at: Date.now() - 60_000 } }];
    const [withSecret, without] = [await (await postgresServer()).createDatabase(), await (await postgresServer()).createDatabase()];
    const [sql, other] = [new SQL(withSecret), new SQL(without)];
    try {
      const store = await openPostgresStore({ sql });
      expect(await importPets(store, moved, { clientMacSecrets: () => [secret] })).toEqual({ count: 1, lastId: 4, keys: 1, keysLeft: 0 });
      const retry = { client: "digest-of-alice", key: "order-1" };
      expect(await store.createWithKey!({ name: "Rex", categoryId: 1 }, retry)).toEqual({ pet: moved[0]!.pet, replayed: true });
      expect(await (await openPostgresStore({ sql })).createWithKey!({ name: "Rex", categoryId: 1 }, retry)).toEqual({ pet: moved[0]!.pet, replayed: true });
      expect((await store.createWithKey!({ name: "Rex", categoryId: 1 }, { ...retry, client: "digest-of-bob" })).replayed).toBe(false);
      const plain = await openPostgresStore({ sql: other });
      expect(await importPets(plain, moved)).toEqual({ count: 1, lastId: 4, keys: 0, keysLeft: 1 });
      expect((await plain.createWithKey!({ name: "Rex", categoryId: 1 }, retry)).replayed).toBe(false);
    } finally {
      await Promise.all([sql.close(), other.close()]);
    }
  });

  test("keys over a day old are deleted by the next keyed create of a newly opened store, and then create anew", async () => {
    const url = await (await postgresServer()).createDatabase();
    const sql = new SQL(url);
    try {
      const key = { client: "digest-of-alice", key: "old-key" };
      const first = await (await openPostgresStore({ sql })).createWithKey!({ name: "Rex", categoryId: 1 }, key);
      await sql`update pet_idempotency_keys set created_at = now() - interval '25 hours'`;
      const store = await openPostgresStore({ sql });
      await store.createWithKey!({ name: "Tom", categoryId: 1 }, { ...key, key: "new-key" });
      for (let i = 0; i < 100 && (await sql`select 1 from pet_idempotency_keys where key = 'old-key'`).length > 0; i++) await Bun.sleep(20);
      const again = await store.createWithKey!({ name: "Rex", categoryId: 1 }, key);
      expect(again.replayed).toBe(false);
      expect(again.pet.id).not.toBe(first.pet.id);
    } finally {
      await sql.close();
    }
  });
});

/** The store's deadline in the "database down" test. */
const DOWN_DEADLINE_MS = 2000;

describe.each(Object.keys(CLIENTS) as (keyof typeof CLIENTS)[])("PostgreSQL store failures with %s", (client) => {
  test("a database that is down answers StoreUnavailableError within the deadline, and the store recovers when it is back", async () => {
    const server = await postgresServer();
    const store = await openStore(client, { timeoutMs: DOWN_DEADLINE_MS });
    try {
      const before = await store.create({ name: "before", categoryId: 1 });
      await server.whileStopped(async () => {
        const started = Date.now();
        const failures = await Promise.all([
          store.create({ name: "down", categoryId: 1 }).catch((error: unknown) => error),
          store.list({ limit: 5, after: 0 }).catch((error: unknown) => error),
          store.get(before.id).catch((error: unknown) => error),
        ]);
        for (const failure of failures) expect(failure).toBeInstanceOf(StoreUnavailableError);
        // The deadline, with room for a loaded machine: without one the clients would keep retrying.
        expect(Date.now() - started).toBeLessThan(DOWN_DEADLINE_MS + 8000);
        expect(await store.health!()).toMatchObject({ ok: false, reason: expect.stringContaining("the database") });
      });
      expect(await store.health!()).toEqual({ ok: true });
      const after = await store.create({ name: "after", categoryId: 2 });
      expect(after.id).toBeGreaterThan(before.id);
      expect((await store.list({ limit: 5, after: 0 })).map((pet) => pet.name)).toContain("after");
    } finally {
      await store.close();
    }
  }, 60_000);
});
