import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Runtime } from "./server-process.ts";
import { startServer } from "./server-process.ts";
import { tempFolder } from "./temp.ts";

const RUNTIMES: readonly Runtime[] = ["bun", "deno", "node"];

/** The key a server printed when it generated one. */
function printedKey(output: string): string {
  return /generated API key: ([\w-]+)/.exec(output)?.[1] ?? "none printed";
}

/** Why a file-store server without API_KEYS did not start in `folder`: its exit code and output. */
async function startFailure(runtime: Runtime, folder: string): Promise<string> {
  const env = { STORE: "file", DATA_FILE: join(folder, "pets.json"), API_KEYS: "" };
  return await startServer(runtime, env).then(async (server) => (await server.stop("SIGKILL"), `started:\n${server.output()}`), (error: Error) => error.message);
}

/** A token-shaped word in a file the server must never take for its key. */
const FOREIGN_WORD = "someone-elses-token";

describe("the generated API key, kept in the data folder", () => {
  test.each(RUNTIMES)("on %s a restart without API_KEYS reuses the first start's key and says where it is kept", async (runtime) => {
    const folder = tempFolder();
    const env = { STORE: "file", DATA_FILE: join(folder, "pets.json"), API_KEYS: "" };
    const first = await startServer(runtime, env);
    const key = printedKey(first.output());
    try {
      const created = await fetch(`${first.url}/pets`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: '{"name":"Rex","categoryId":1}',
      });
      expect(created.status).toBe(201);
    } finally {
      expect(await first.stop("SIGTERM")).toBe(0);
    }
    expect(first.output()).toContain(`generated API key: ${key} (kept in ${join(folder, "api-key")} for later starts)`);

    const second = await startServer(runtime, env);
    try {
      // The key is printed only by the start that made it: a later start says where it is.
      expect(second.output()).toContain(`API_KEYS is not set; using the API key an earlier start kept in ${join(folder, "api-key")} (read it there)\n`);
      expect(second.output()).not.toContain(key);
      const listed = await fetch(`${second.url}/pets`, { headers: { authorization: `Bearer ${key}` } });
      expect({ status: listed.status, names: ((await listed.json()) as { name: string }[]).map((pet) => pet.name) }).toEqual({ status: 200, names: ["Rex"] });
    } finally {
      await second.stop("SIGKILL");
    }
  }, 30_000);

  test("the key file is readable by its owner only and holds the key alone", async () => {
    const folder = tempFolder();
    const server = await startServer("bun", { STORE: "file", DATA_FILE: join(folder, "pets.json"), API_KEYS: "" });
    await server.stop("SIGKILL");
    const path = join(folder, "api-key");
    expect({ mode: statSync(path).mode & 0o777, text: readFileSync(path, "utf8") }).toEqual({ mode: 0o600, text: `${printedKey(server.output())}\n` });
  }, 20_000);

  test("with a DATA_FILE in a folder of its own, the key is kept beside it, not in data/", async () => {
    const folder = join(tempFolder(), "elsewhere");
    const server = await startServer("deno", { STORE: "file", DATA_FILE: join(folder, "store.json"), API_KEYS: "" });
    await server.stop("SIGKILL");
    expect(readFileSync(join(folder, "api-key"), "utf8")).toBe(`${printedKey(server.output())}\n`);
  }, 20_000);

  test("with STORE=memory a new key is made on each start and nothing is written", async () => {
    const folder = tempFolder();
    const env = { STORE: "memory", DATA_FILE: join(folder, "pets.json"), API_KEYS: "" };
    const keys: string[] = [];
    for (const _ of [1, 2]) {
      const server = await startServer("bun", env);
      await server.stop("SIGKILL");
      expect(server.output()).toContain("(not kept: STORE=memory)");
      keys.push(printedKey(server.output()));
    }
    expect({ differ: keys[0] !== keys[1], written: existsSync(join(folder, "api-key")) }).toEqual({ differ: true, written: false });
  }, 20_000);

  test("with API_KEYS set nothing is written and no key file is read", async () => {
    const folder = tempFolder();
    writeFileSync(join(folder, "api-key"), "kept-key\n", { mode: 0o600 });
    const server = await startServer("bun", { STORE: "file", DATA_FILE: join(folder, "pets.json"), API_KEYS: "configured" });
    try {
      expect((await fetch(`${server.url}/pets`, { headers: { authorization: "Bearer kept-key" } })).status).toBe(401);
      expect(server.output()).not.toContain("kept-key");
    } finally {
      await server.stop("SIGKILL");
    }
  }, 20_000);

  test("a key file that holds no key stops the start with one line naming it and exit 1", async () => {
    const folder = tempFolder();
    writeFileSync(join(folder, "api-key"), "not a key\n", { mode: 0o600 });
    const failure = await startServer("bun", { STORE: "file", DATA_FILE: join(folder, "pets.json"), API_KEYS: "" }).then(() => "started", (error: Error) => error.message);
    expect(failure).toBe(
      `bun server did not start (exit code 1):\nanimal-store: Cannot use ${join(folder, "api-key")}: it does not hold an API key (one bearer token); delete it to have a new one made, or set API_KEYS\n`,
    );
  }, 20_000);

  test.each(RUNTIMES)("on %s a dangling symbolic link at the key file stops the start with exit 1 naming it", async (runtime) => {
    const folder = tempFolder();
    symlinkSync("nowhere", join(folder, "api-key"));
    expect(await startFailure(runtime, folder)).toBe(
      `${runtime} server did not start (exit code 1):\nanimal-store: Cannot use ${join(folder, "api-key")}: it is a symbolic link, not a regular file; delete it to have a new one made, or set API_KEYS\n`,
    );
  }, 30_000);

  test.each(RUNTIMES)("on %s a key file linked to another file is refused, and that file's word is never printed", async (runtime) => {
    const folder = tempFolder();
    writeFileSync(join(folder, "other"), `${FOREIGN_WORD}\n`, { mode: 0o600 });
    symlinkSync("other", join(folder, "api-key"));
    const failure = await startFailure(runtime, folder);
    expect(failure).toStartWith(`${runtime} server did not start (exit code 1):\nanimal-store: Cannot use ${join(folder, "api-key")}: it is a symbolic link`);
    expect(failure).not.toContain(FOREIGN_WORD);
  }, 30_000);

  test.each(RUNTIMES)("on %s a FIFO at the key file is refused at once, not waited on", async (runtime) => {
    const folder = tempFolder();
    expect(Bun.spawnSync(["mkfifo", join(folder, "api-key")]).exitCode).toBe(0);
    expect(await startFailure(runtime, folder)).toBe(
      `${runtime} server did not start (exit code 1):\nanimal-store: Cannot use ${join(folder, "api-key")}: it is a FIFO, not a regular file; delete it to have a new one made, or set API_KEYS\n`,
    );
  }, 30_000);

  test.each(RUNTIMES)("on %s a key file others may read is refused, as ssh refuses such a key, and its key is not printed", async (runtime) => {
    const folder = tempFolder();
    const path = join(folder, "api-key");
    writeFileSync(path, `${FOREIGN_WORD}\n`);
    chmodSync(path, 0o644);
    const failure = await startFailure(runtime, folder);
    expect(failure).toBe(
      `${runtime} server did not start (exit code 1):\nanimal-store: Cannot use ${path}: its mode 644 lets other users at it (chmod 600 it if no one else could have read it); delete it to have a new one made, or set API_KEYS\n`,
    );
  }, 30_000);

  test("a key file of more than 4 KiB is refused without being read whole", async () => {
    const folder = tempFolder();
    writeFileSync(join(folder, "api-key"), `${"k".repeat(5000)}\n`, { mode: 0o600 });
    expect(await startFailure("bun", folder)).toBe(
      `bun server did not start (exit code 1):\nanimal-store: Cannot use ${join(folder, "api-key")}: it holds more than 4096 bytes; delete it to have a new one made, or set API_KEYS\n`,
    );
  }, 20_000);

  test.each(RUNTIMES)("on %s a dangling symbolic link at the data file's secret stops the start with exit 1 naming it", async (runtime) => {
    const folder = tempFolder();
    symlinkSync("nowhere", join(folder, "pets.json.secret"));
    const failure = await startServer(runtime, { STORE: "file", DATA_FILE: join(folder, "pets.json"), API_KEYS: "k" }).then(() => "started", (error: Error) => error.message);
    expect(failure).toBe(
      `${runtime} server did not start (exit code 1):\nanimal-store: Cannot open ${join(folder, "pets.json")}: ${join(folder, "pets.json.secret")}: it is a symbolic link, not a regular file; restore it from a backup as a regular file (mode 600), or delete it to make a new one\n`,
    );
  }, 30_000);

  test("a folder at the key file stops the start with one line naming it and exit 1", async () => {
    const folder = tempFolder();
    mkdirSync(join(folder, "api-key"));
    expect(await startFailure("node", folder)).toBe(
      `node server did not start (exit code 1):\nanimal-store: Cannot use ${join(folder, "api-key")}: it is a folder, not a regular file; delete it to have a new one made, or set API_KEYS\n`,
    );
  }, 20_000);

  test("a key file that cannot be written stops the start with one line naming it and exit 1", async () => {
    // The data folder takes files (a DATA_FILE in one that does not exits 2 naming DATA_FILE), but
    // not one byte more: the disk is full.
    const folder = tempFolder();
    const env = { STORE: "file", DATA_FILE: join(folder, "pets.json"), API_KEYS: "" };
    const failure = await startServer("node", env, { maxFileKiB: 0 }).then(() => "started", (error: Error) => error.message);
    expect(failure).toBe(
      `node server did not start (exit code 1):\nanimal-store: Cannot keep the generated API key in ${join(folder, "api-key")} (EFBIG); set API_KEYS, or let the server write to ${folder}\n`,
    );
  }, 20_000);
});
