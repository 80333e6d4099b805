import { describe, expect, test } from "bun:test";
import { readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { StoreUnavailableError } from "../src/mod.ts";
import { deadProcess } from "./processes.ts";
import { tempDataFile } from "./temp.ts";

const quiet = { info: () => {}, warn: () => {} };

describe("JSON-file store whose lock is lost while it runs", () => {
  test("a removed lock file refuses creates, saying another process may write the file, and writes nothing", async () => {
    const path = tempDataFile();
    const store = await openJsonFileStore(path, { logger: quiet });
    await store.create({ name: "Rex", categoryId: 1 });
    const before = readFileSync(path, "utf8");
    unlinkSync(`${path}.lock`);
    const refused = await store.create({ name: "Tom", categoryId: 2 }).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect((refused as Error).message).toContain(`the lock file ${path}.lock was removed or taken over`);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(await store.get(1)).toMatchObject({ name: "Rex" });
    await store.close();
  });

  test("a lock taken over by another process refuses creates and is left in place on close", async () => {
    const path = tempDataFile();
    const store = await openJsonFileStore(path, { logger: quiet });
    const other = `${JSON.stringify(await deadProcess())}\n`;
    writeFileSync(`${path}.other`, other);
    renameSync(`${path}.other`, `${path}.lock`);
    await expect(store.create({ name: "Tom", categoryId: 2 })).rejects.toThrow("was removed or taken over");
    await store.close();
    expect(readFileSync(`${path}.lock`, "utf8")).toBe(other);
  });

  test("a removed lock file makes the health check fail at once, before any create", async () => {
    const path = tempDataFile();
    const store = await openJsonFileStore(path, { logger: quiet });
    expect(await store.health!()).toEqual({ ok: true });
    unlinkSync(`${path}.lock`);
    expect(await store.health!()).toEqual({
      ok: false,
      reason: `the lock file ${path}.lock was removed or taken over while this server ran, so another process may write ${path}; ` +
        "no pet is created until the server restarts",
    });
    await store.close();
  });

  test("a lock taken over by another process makes the health check fail", async () => {
    const path = tempDataFile();
    const store = await openJsonFileStore(path, { logger: quiet });
    writeFileSync(`${path}.other`, `${JSON.stringify(await deadProcess())}\n`);
    renameSync(`${path}.other`, `${path}.lock`);
    expect((await store.health!()).ok).toBe(false);
    await store.close();
  });
});
