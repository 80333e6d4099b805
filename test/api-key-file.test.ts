import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Runtime } from "./server-process.ts";
import { startServer } from "./server-process.ts";
import { tempFolder } from "./temp.ts";

const RUNTIMES: readonly Runtime[] = ["bun", "deno", "node"];

/** The key a server printed, generated or kept. */
function printedKey(output: string): string {
  return /API key(?: kept in \S+)?: ([\w-]+)/.exec(output)?.[1] ?? "none printed";
}

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
      expect(second.output()).toContain(`API_KEYS is not set; using the API key kept in ${join(folder, "api-key")}: ${key}\n`);
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

  test("a key file that cannot be written stops the start with one line naming it and exit 1", async () => {
    // The data folder takes files (a DATA_FILE in one that does not exits 2 naming DATA_FILE), but
    // a folder stands where the key file would go.
    const folder = tempFolder();
    mkdirSync(join(folder, "api-key"));
    const failure = await startServer("node", { STORE: "file", DATA_FILE: join(folder, "pets.json"), API_KEYS: "" }).then(() => "started", (error: Error) => error.message);
    expect(failure).toBe(
      `node server did not start (exit code 1):\nanimal-store: Cannot keep the generated API key in ${join(folder, "api-key")} (EISDIR); set API_KEYS, or let the server write to ${folder}\n`,
    );
  }, 20_000);
});
