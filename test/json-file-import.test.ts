/**
 * @module
 * `openJsonFileImport`, the import `animal-store import --data-file` makes: pets written to the file
 * as they are read, without loading them, leaving the file exactly as the store's own import would,
 * all or nothing (issue 53, item 2).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { MovedPet } from "../src/mod.ts";
import { ImportRefusedError, importPets, IDEMPOTENCY_KEY_TTL_MS } from "../src/mod.ts";
import { openJsonFileImport, openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { dataFileWith } from "./data-files.ts";
import { tempDataFile } from "./temp.ts";

const quiet = { info: () => {}, warn: () => {} };
const alice = { client: "digest-of-alice", key: "order-1" };

/** `count` pets from `first` on, every third sold, the second with a young key of Alice's. */
function pets(count: number, first = 1): MovedPet[] {
  return Array.from({ length: count }, (_, i) => {
    const id = first + i;
    const pet = { id, name: `pet ${id}`, categoryId: id % 7, ...(id % 3 === 0 ? { status: "sold" as const } : {}) };
    return i === 1 ? { pet, key: { ...alice, at: Date.now() - 60_000 } } : { pet };
  });
}

/** Imports `moved` through `openJsonFileImport`, closing it whatever happens. */
async function streamInto(path: string, moved: readonly MovedPet[], options: { append?: boolean } = {}) {
  const target = await openJsonFileImport(path, { logger: quiet });
  try {
    return await importPets(target, moved, options);
  } finally {
    await target.close();
  }
}

/** Every file beside the data file that a store or an import writes, with its bytes (`undefined`: absent). */
function filesOf(path: string): Record<string, string | undefined> {
  const files: Record<string, string | undefined> = {};
  for (const suffix of ["", ".import", ".last-id", ".secret", ".lock"]) files[suffix] = existsSync(path + suffix) ? readFileSync(path + suffix, "utf8") : undefined;
  return files;
}

describe("JSON-file import without loading the file", () => {
  test("leaves the file byte for byte as the store's own import does, and answers the same summary", async () => {
    const [streamed, stored] = [tempDataFile(), tempDataFile()];
    // The same secret on both sides, so the key's HMAC is the same too.
    for (const path of [streamed, stored]) writeFileSync(`${path}.secret`, `${"s".repeat(43)}\n`, { mode: 0o600 });
    const moved = pets(500);
    const byStore = await openJsonFileStore(stored, { logger: quiet });
    const storeSummary = await importPets(byStore, moved);
    await byStore.close();
    expect(await streamInto(streamed, moved)).toEqual(storeSummary);
    expect(readFileSync(streamed, "utf8")).toBe(readFileSync(stored, "utf8"));
    expect(readFileSync(`${streamed}.last-id`, "utf8")).toBe(readFileSync(`${stored}.last-id`, "utf8"));
  });

  test("a store opened afterwards serves every imported pet, replays the imported key, and numbers new pets above them", async () => {
    const path = tempDataFile();
    expect(await streamInto(path, pets(300))).toEqual({ count: 300, lastId: 300, keys: 1, keysLeft: 0 });
    const store = await openJsonFileStore(path, { logger: quiet });
    try {
      expect(await store.get(3)).toEqual({ id: 3, name: "pet 3", categoryId: 3, status: "sold" });
      expect((await store.list({ limit: 100, after: 250 })).map((pet) => pet.id)).toEqual(Array.from({ length: 50 }, (_, i) => 251 + i));
      expect(await store.createWithKey!({ name: "again", categoryId: 1 }, alice)).toEqual({ pet: pets(2)[1]!.pet, replayed: true });
      expect((await store.create({ name: "new", categoryId: 1 })).id).toBe(301);
    } finally {
      await store.close();
    }
  });

  test("its read-back gives the file's pets from the disk, keys younger than 24 hours with them", async () => {
    const path = tempDataFile();
    const target = await openJsonFileImport(path, { logger: quiet });
    try {
      const old = { pet: { id: 9, name: "old", categoryId: 1 }, key: { ...alice, key: "old", at: Date.now() - IDEMPOTENCY_KEY_TTL_MS - 60_000 } };
      await importPets(target, [...pets(3), old]);
      const back: MovedPet[] = [];
      for await (const moved of target.exportPets()) back.push(moved);
      expect(back.map(({ pet }) => pet)).toEqual([...pets(3).map(({ pet }) => pet), old.pet]);
      expect(back.map(({ key }) => key?.key)).toEqual([undefined, "order-1", undefined, undefined]);
    } finally {
      await target.close();
    }
  });

  test("a file that holds pets is refused unless appending, and an append goes above the highest id ever handed out", async () => {
    const path = await dataFileWith(5);
    // A server that handed out ids up to 1,000 and lost the newest lines: the mark keeps them used.
    writeFileSync(`${path}.last-id`, "1000\n");
    const before = filesOf(path);
    await expect(streamInto(path, pets(3, 6))).rejects.toThrow("the target store already holds 5 pets");
    await expect(streamInto(path, pets(3, 6), { append: true })).rejects.toThrow("not above the highest id the target store has handed out 1000");
    expect(filesOf(path)).toEqual(before);
    expect(await streamInto(path, pets(3, 1001), { append: true })).toMatchObject({ count: 3, lastId: 1003 });
    const store = await openJsonFileStore(path, { logger: quiet });
    try {
      expect((await store.list({ limit: 100, after: 0 })).map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5, 1001, 1002, 1003]);
    } finally {
      await store.close();
    }
  });

  test("an invalid pet or an input that fails half way leaves the file and everything beside it byte-identical", async () => {
    const path = await dataFileWith(2);
    const before = filesOf(path);
    const invalid = [...pets(100, 3), { pet: { id: 200, name: "", categoryId: 1 } }];
    const refusal = await streamInto(path, invalid, { append: true }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ImportRefusedError);
    expect((refusal as ImportRefusedError).position).toBe(100);
    async function* cutShort(): AsyncIterable<MovedPet> {
      yield* pets(50, 3);
      throw new Error("the input ended early");
    }
    const target = await openJsonFileImport(path, { logger: quiet });
    await expect(importPets(target, cutShort(), { append: true })).rejects.toThrow("the input ended early");
    await target.close();
    expect(filesOf(path)).toEqual(before);
  });

  test("a file a store holds is refused, naming it, and left as it was", async () => {
    const path = await dataFileWith(1);
    const store = await openJsonFileStore(path, { logger: quiet });
    try {
      const before = readFileSync(path, "utf8");
      await expect(openJsonFileImport(path, { logger: quiet })).rejects.toThrow(path);
      expect(readFileSync(path, "utf8")).toBe(before);
      expect(await store.get(1)).toMatchObject({ id: 1 });
    } finally {
      await store.close();
    }
  });
});
