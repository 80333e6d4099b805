import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportPets, importPets } from "../src/mod.ts";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { identityOf } from "../adapters/json-file-store/_process-identity.ts";
import { deadProcess } from "./processes.ts";
import { idempotentStoreContract } from "./store-idempotency-contract.ts";
import { importingStoreContract } from "./store-import-contract.ts";
import { reopenableStoreContract } from "./store-reopen-contract.ts";
import { storeContract } from "./store-contract.ts";
import { tempDataFile, tempFolder } from "./temp.ts";

const HEADER = '{"format":"animal-store-pets","version":1}\n';

/** A logger that records what the store says. */
function recorder() {
  const lines: string[] = [];
  return { lines, logger: { info: (line: string) => lines.push(line), warn: (line: string) => lines.push(`WARN ${line}`) } };
}
const quiet = { info: () => {}, warn: () => {} };

storeContract("JSON file", () => openJsonFileStore(tempDataFile(), { logger: quiet }));
idempotentStoreContract("JSON file", () => openJsonFileStore(tempDataFile(), { logger: quiet }));
importingStoreContract("JSON file", () => openJsonFileStore(tempDataFile(), { logger: quiet }));
reopenableStoreContract("JSON file", () => {
  const path = tempDataFile();
  return Promise.resolve({ open: () => openJsonFileStore(path, { logger: quiet }), removeNewest: async () => removeLastLine(path) });
});

/** Removes the file's last line, as an operator editing it while the server is stopped might. */
function removeLastLine(path: string): void {
  const lines = readFileSync(path, "utf8").split("\n").slice(0, -1);
  writeFileSync(path, `${lines.slice(0, -1).join("\n")}\n`);
}

describe("JSON-file store", () => {
  describe("a pets.json.last-id that is no mark the store wrote is refused at once, naming it (issue 48, item 9)", () => {
    const cases: [string, (mark: string) => void, string][] = [
      ["a FIFO, which a plain read waits on for a writer", (mark) => expect(Bun.spawnSync(["mkfifo", mark]).exitCode).toBe(0), "it is a FIFO, not a regular file"],
      ["a link to /dev/zero, which never ends", (mark) => symlinkSync("/dev/zero", mark), "it is a symbolic link, not a regular file"],
      ["a folder", (mark) => mkdirSync(mark), "it is a folder, not a regular file"],
      ["a file of 5,000 bytes", (mark) => writeFileSync(mark, "7".repeat(5000)), "it holds more than 4096 bytes"],
    ];
    for (const [name, make, problem] of cases) {
      test(name, async () => {
        const path = tempDataFile();
        writeFileSync(path, `${HEADER}{"id":1,"name":"a","categoryId":1}\n`);
        make(`${path}.last-id`);
        const opening = openJsonFileStore(path, { logger: quiet }).then(() => "opened", (error: Error) => error.message);
        const outcome = await Promise.race([opening, Bun.sleep(10_000).then(() => "still opening after 10 s")]);
        expect(outcome).toBe(`Cannot open ${path}: ${path}.last-id: ${problem}; it should hold the highest id handed out: ` +
          "put back the one a backup kept, or delete it to number above the data file's last id");
        expect(readFileSync(path, "utf8")).toBe(`${HEADER}{"id":1,"name":"a","categoryId":1}\n`);
      }, 20_000);
    }
  });

  test("create 1 and 2, remove the last line while stopped, restart: the next create gets 3 and the file still loads (issue 42)", async () => {
    const path = tempDataFile();
    const first = await openJsonFileStore(path, { logger: quiet });
    await first.create({ name: "one", categoryId: 1 });
    await first.create({ name: "two", categoryId: 1 });
    await first.close();
    removeLastLine(path);
    const second = await openJsonFileStore(path, { logger: quiet });
    expect((await second.create({ name: "three", categoryId: 1 })).id).toBe(3);
    await second.close();
    const third = await openJsonFileStore(path, { logger: quiet });
    expect((await third.list({ limit: 10, after: 0 })).map((pet) => pet.id)).toEqual([1, 3]);
    await third.close();
  });

  test("pets survive a reopen with the same ids and fields, and new ids continue after them", async () => {
    const path = tempDataFile();
    const first = await openJsonFileStore(path, { logger: quiet });
    const a = await first.create({ name: "Rex", categoryId: 3, status: "sold" });
    const b = await first.create({ name: "Tom", categoryId: -1 });
    await first.close();
    const second = await openJsonFileStore(path, { logger: quiet });
    expect(await second.list({ limit: 10, after: 0 })).toEqual([a, b]);
    const c = await second.create({ name: "Kit", categoryId: 1 });
    expect(c.id).toBeGreaterThan(b.id);
    await second.close();
  });

  test("the file is readable JSON Lines: a header, then one pet per line", async () => {
    const path = tempDataFile();
    const store = await openJsonFileStore(path, { logger: quiet });
    await store.create({ name: "Rex", categoryId: 3, status: "available" });
    await store.create({ name: "Tom", categoryId: 1 });
    await store.close();
    expect(readFileSync(path, "utf8")).toBe(
      `${HEADER}{"id":1,"name":"Rex","categoryId":3,"status":"available"}\n{"id":2,"name":"Tom","categoryId":1}\n`,
    );
  });

  test("a create resolves only after its line is in the file", async () => {
    const path = tempDataFile();
    const store = await openJsonFileStore(path, { logger: quiet });
    const pets = await Promise.all([1, 2, 3].map((i) => store.create({ name: `p${i}`, categoryId: i })));
    const lines = readFileSync(path, "utf8").trim().split("\n").slice(1);
    expect(lines.map((line) => JSON.parse(line))).toEqual(pets);
    await store.close();
  });

  test("a missing folder is created; opening and closing log one line each", async () => {
    const path = join(tempFolder(), "deep", "er", "pets.json");
    const { lines, logger } = recorder();
    const store = await openJsonFileStore(path, { logger });
    await store.close();
    expect(existsSync(path)).toBe(true);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toStartWith(`opened ${path}: 0 pets loaded`);
    expect(lines[1]).toBe(`closed ${path}: 0 pets`);
  });

  test("a folder that cannot be created stops the open with an error naming it", async () => {
    const blocker = join(tempFolder(), "not-a-folder");
    writeFileSync(blocker, "");
    const path = join(blocker, "pets.json");
    await expect(openJsonFileStore(path, { logger: quiet })).rejects.toThrow(`Cannot open ${path}: its folder ${blocker} cannot be created`);
  });

  test("an empty file is given a header", async () => {
    const path = tempDataFile();
    writeFileSync(path, "");
    const store = await openJsonFileStore(path, { logger: quiet });
    await store.create({ name: "Rex", categoryId: 1 });
    await store.close();
    expect(readFileSync(path, "utf8")).toBe(`${HEADER}{"id":1,"name":"Rex","categoryId":1}\n`);
  });
});

describe("JSON-file store idempotency keys", () => {
  const key = { client: "digest-of-alice", key: "retry-1" };

  test("a keyed create writes its key in the pet's own line, its client as an HMAC under the file's secret, and the key is recognised after a reopen", async () => {
    const path = tempDataFile();
    const first = await openJsonFileStore(path, { logger: quiet });
    const { pet } = await first.createWithKey!({ name: "Rex", categoryId: 1 }, key);
    await first.close();
    const secret = Buffer.from(readFileSync(`${path}.secret`, "utf8").trim(), "base64url");
    const line = JSON.parse(readFileSync(path, "utf8").trim().split("\n")[1]!);
    const clientMac = createHmac("sha256", secret).update(key.client).digest("base64url");
    expect(line).toEqual({ ...pet, idempotency: { clientMac, key: key.key, at: expect.any(Number) } });
    expect(readFileSync(path, "utf8")).not.toContain(key.client);
    const second = await openJsonFileStore(path, { logger: quiet });
    expect(await second.createWithKey!({ name: "Rex", categoryId: 1 }, key)).toEqual({ pet, replayed: true });
    expect(await second.list({ limit: 10, after: 0 })).toEqual([pet]);
    await second.close();
  });

  test("the secret is made on the first open, 32 random bytes readable by the owner only, and kept", async () => {
    const path = tempDataFile();
    await (await openJsonFileStore(path, { logger: quiet })).close();
    const made = readFileSync(`${path}.secret`, "utf8");
    expect(made).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    expect(statSync(`${path}.secret`).mode & 0o777).toBe(0o600);
    await (await openJsonFileStore(path, { logger: quiet })).close();
    expect(readFileSync(`${path}.secret`, "utf8")).toBe(made);
  });

  test("a record written before the MAC, holding the client's bare digest, is read and its key recognised", async () => {
    const path = tempDataFile();
    writeFileSync(path, `${HEADER}{"id":1,"name":"Rex","categoryId":1,"idempotency":{"client":"${key.client}","key":"${key.key}","at":${Date.now()}}}\n`);
    const store = await openJsonFileStore(path, { logger: quiet });
    expect(await store.createWithKey!({ name: "Rex", categoryId: 1 }, key)).toEqual({ pet: { id: 1, name: "Rex", categoryId: 1 }, replayed: true });
    const other = await store.createWithKey!({ name: "Rex", categoryId: 1 }, { ...key, client: "digest-of-bob" });
    expect(other.replayed).toBe(false);
    await store.close();
  });

  test("a missing secret is made anew, with a warning that the keys written under the old one are not recognised", async () => {
    const path = tempDataFile();
    const first = await openJsonFileStore(path, { logger: quiet });
    await first.createWithKey!({ name: "Rex", categoryId: 1 }, key);
    await first.close();
    unlinkSync(`${path}.secret`);
    const { lines, logger } = recorder();
    const second = await openJsonFileStore(path, { logger });
    expect(lines.find((line) => line.startsWith("WARN"))).toContain(`${path}: its secret ${path}.secret was missing, so a new one was made; the 1 idempotency keys`);
    expect((await second.createWithKey!({ name: "Rex", categoryId: 1 }, key)).replayed).toBe(false);
    await second.close();
  });

  test("a file's keys imported into a file with another secret count as left behind, and a retry creates a new pet; with the same secret they came along and replay (issue 48, item 11)", async () => {
    const alice = { client: "digest-of-alice", key: "order-1" };
    const source = tempDataFile();
    const from = await openJsonFileStore(source, { logger: quiet });
    const first = (await from.createWithKey!({ name: "Rex", categoryId: 1 }, alice)).pet;
    const moved = [];
    for await (const item of exportPets(from)) moved.push(item);
    await from.close();
    const secret = readFileSync(`${source}.secret`, "utf8").trim();
    const sameSecret = tempDataFile();
    writeFileSync(`${sameSecret}.secret`, `${secret}\n`, { mode: 0o600 });
    const cases = [
      { path: tempDataFile(), secrets: [secret], summary: { count: 1, lastId: first.id, keys: 0, keysLeft: 1 }, replayed: false },
      { path: tempDataFile(), secrets: undefined, summary: { count: 1, lastId: first.id, keys: 0, keysLeft: 1 }, replayed: false },
      { path: sameSecret, secrets: [secret], summary: { count: 1, lastId: first.id, keys: 1, keysLeft: 0 }, replayed: true },
    ];
    for (const { path, secrets, summary, replayed } of cases) {
      const target = await openJsonFileStore(path, { logger: quiet });
      try {
        expect(await importPets(target, moved, secrets === undefined ? {} : { clientMacSecrets: () => secrets })).toEqual(summary);
        const retry = await target.createWithKey!({ name: "Rex", categoryId: 1 }, alice);
        expect(retry.replayed).toBe(replayed);
        expect(retry.pet.id === first.id).toBe(replayed);
      } finally {
        await target.close();
      }
    }
  });

  test("a secret file that holds no secret stops the open, naming it", async () => {
    const path = tempDataFile();
    writeFileSync(`${path}.secret`, "not a secret\n", { mode: 0o600 });
    await expect(openJsonFileStore(path, { logger: quiet })).rejects.toThrow(`Cannot open ${path}: ${path}.secret does not hold a secret`);
  });

  test("a key older than 24 hours in the file is forgotten: the same key creates a new pet", async () => {
    const path = tempDataFile();
    const dayAndMinuteAgo = Date.now() - 24 * 60 * 60 * 1000 - 60_000;
    writeFileSync(path, `${HEADER}{"id":1,"name":"Rex","categoryId":1,"idempotency":{"client":"digest-of-alice","key":"retry-1","at":${dayAndMinuteAgo}}}\n`);
    const store = await openJsonFileStore(path, { logger: quiet });
    const outcome = await store.createWithKey!({ name: "Rex", categoryId: 1 }, key);
    expect(outcome).toEqual({ pet: { id: 2, name: "Rex", categoryId: 1 }, replayed: false });
    await store.close();
  });

  test("past maxIdempotencyKeys the oldest key is forgotten", async () => {
    const store = await openJsonFileStore(tempDataFile(), { logger: quiet, maxIdempotencyKeys: 2 });
    const first = await store.createWithKey!({ name: "a", categoryId: 1 }, { ...key, key: "k1" });
    await store.createWithKey!({ name: "b", categoryId: 1 }, { ...key, key: "k2" });
    await store.createWithKey!({ name: "c", categoryId: 1 }, { ...key, key: "k3" });
    expect((await store.createWithKey!({ name: "c", categoryId: 1 }, { ...key, key: "k3" })).replayed).toBe(true);
    const again = await store.createWithKey!({ name: "a", categoryId: 1 }, { ...key, key: "k1" });
    expect(again.replayed).toBe(false);
    expect(again.pet.id).not.toBe(first.pet.id);
    await store.close();
  });

  test("a record with a malformed idempotency member stops the open naming file and line", async () => {
    const path = tempDataFile();
    writeFileSync(path, `${HEADER}{"id":1,"name":"Rex","categoryId":1,"idempotency":{"key":"retry-1"}}\n`);
    await expect(openJsonFileStore(path, { logger: quiet })).rejects.toThrow(
      `Cannot load ${path}: line 2 has an idempotency key without exactly one of "client" and "clientMac"; the file was left untouched`,
    );
  });

  test("a record holding both a client digest and a MAC stops the open naming file and line", async () => {
    const path = tempDataFile();
    writeFileSync(path, `${HEADER}{"id":1,"name":"Rex","categoryId":1,"idempotency":{"client":"a","clientMac":"b","key":"retry-1","at":1}}\n`);
    await expect(openJsonFileStore(path, { logger: quiet })).rejects.toThrow(`Cannot load ${path}: line 2 has an idempotency key without exactly one of "client" and "clientMac"`);
  });

  test("a closed store says so in its health", async () => {
    const store = await openJsonFileStore(tempDataFile(), { logger: quiet });
    await store.close();
    expect(await store.health!()).toEqual({ ok: false, reason: "the store is closed" });
  });
});

describe("JSON-file store with a damaged file", () => {
  const good = `${HEADER}{"id":1,"name":"Rex","categoryId":1}\n{"id":2,"name":"Tom","categoryId":2,"status":"sold"}\n`;

  test("a torn final record is dropped with a warning, saved aside, and the file appends cleanly", async () => {
    const path = tempDataFile();
    writeFileSync(path, `${good}{"id":3,"name":"Ki`);
    const { lines, logger } = recorder();
    const store = await openJsonFileStore(path, { logger });
    expect((await store.list({ limit: 10, after: 0 })).map((pet) => pet.id)).toEqual([1, 2]);
    expect(lines.find((line) => line.startsWith("WARN"))).toContain(`${path}: dropped a torn record at line 4`);
    await store.create({ name: "Kim", categoryId: 3 });
    await store.close();
    expect(readFileSync(path, "utf8")).toBe(`${good}{"id":3,"name":"Kim","categoryId":3}\n`);
    const saved = readdirSync(join(path, "..")).find((name) => name.startsWith("pets.json.torn-"));
    expect(readFileSync(join(path, "..", saved!), "utf8")).toBe('{"id":3,"name":"Ki');
  });

  test("a whole last record without its newline is kept", async () => {
    const path = tempDataFile();
    writeFileSync(path, good.trimEnd());
    const store = await openJsonFileStore(path, { logger: quiet });
    await store.create({ name: "Kim", categoryId: 3 });
    await store.close();
    expect(readFileSync(path, "utf8")).toBe(`${good}{"id":3,"name":"Kim","categoryId":3}\n`);
  });

  test.each([
    ["garbage in the middle", `${HEADER}{"id":1,"name":"Rex","categoryId":1}\nnot json\n{"id":3,"name":"Kim","categoryId":3}\n`, "line 3 is not a valid pet: record is not valid JSON"],
    ["an unknown format version", '{"format":"animal-store-pets","version":2}\n', "line 1 names format version 2; this server reads version 1"],
    ["a file of another format", '{"some":"thing"}\n', "line 1 is not the animal-store header"],
    ["a record with an invalid status", `${HEADER}{"id":1,"name":"Rex","categoryId":1,"status":"lost"}\n`, 'line 2 is not a valid pet: "status" must be one of'],
    ["a record without an id", `${HEADER}{"name":"Rex","categoryId":1}\n`, 'line 2 is not a valid pet: "id" must be a positive integer'],
    ["ids out of order", `${HEADER}{"id":2,"name":"Rex","categoryId":1}\n{"id":2,"name":"Tom","categoryId":1}\n`, "line 3 has id 2, not above the previous id 2"],
    ["a complete but invalid last line", `${HEADER}{"id":1,"name":"","categoryId":1}`, 'line 2 is not a valid pet: "name" must not be empty'],
    ["bytes that are not UTF-8", `${HEADER}{"id":1,"name":"\xff","categoryId":1}\n`, "line 2 is not valid UTF-8"],
  ])("%s stops the open naming file and line, and leaves the file untouched", async (_, content, message) => {
    const path = tempDataFile();
    const bytes = content.includes("\xff") ? Buffer.from(content, "latin1") : Buffer.from(content);
    writeFileSync(path, bytes);
    await expect(openJsonFileStore(path, { logger: quiet })).rejects.toThrow(`Cannot load ${path}: ${message}`);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(existsSync(`${path}.secret`)).toBe(false);
  });
});

describe("JSON-file store lock", () => {
  test("a second open of the same file is refused while the first holds it, and allowed after close", async () => {
    const path = tempDataFile();
    const first = await openJsonFileStore(path, { logger: quiet });
    await expect(openJsonFileStore(path, { logger: quiet })).rejects.toThrow("it is already open in this process");
    await first.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    await (await openJsonFileStore(path, { logger: quiet })).close();
  });

  test("a lock held by another live process is refused, naming that process", async () => {
    const path = tempDataFile();
    const holder = Bun.spawn(["sleep", "10"]);
    try {
      writeFileSync(`${path}.lock`, `${JSON.stringify(await identityOf(holder.pid))}\n`);
      await expect(openJsonFileStore(path, { logger: quiet })).rejects.toThrow(`it is in use by process ${holder.pid}`);
    } finally {
      holder.kill();
    }
  });

  test("a stale lock left by a dead process is taken over", async () => {
    const path = tempDataFile();
    writeFileSync(`${path}.lock`, `${JSON.stringify(await deadProcess())}\n`);
    const store = await openJsonFileStore(path, { logger: quiet });
    expect(JSON.parse(readFileSync(`${path}.lock`, "utf8")).pid).toBe(process.pid);
    await store.close();
  });

  test("of several processes racing for a stale lock, exactly one wins", async () => {
    for (let round = 0; round < 3; round++) {
      const path = tempDataFile();
      writeFileSync(`${path}.lock`, `${JSON.stringify(await deadProcess())}\n`);
      const racers = Array.from({ length: 4 }, () =>
        Bun.spawn([process.execPath, "test/fixtures/open-store.ts", path], { stdout: "pipe", stderr: "pipe" }));
      try {
        const outcomes = await Promise.all(racers.map((racer) => new Response(racer.stdout).text()));
        expect(outcomes.filter((outcome) => outcome.startsWith("won")).length).toBe(1);
      } finally {
        for (const racer of racers) if (racer.exitCode === null) racer.kill("SIGKILL");
      }
    }
    // Twelve runtimes started on a machine that may be busy: the budget is for a hang, not for speed.
  }, 90_000);
});
