/**
 * @module
 * API keys from a file (`API_KEYS_FILE`) on the real server, for one runtime (`http.test.ts` runs it on
 * each): the names in the access log, text and JSON, and no key or hash anywhere; a read-only key's 403
 * and an expired key's 401; SIGHUP's reload (a new key from the next request, a removed one refused, a
 * request in flight answered as it began, a kept-alive connection kept, one line of counts, also when
 * sent the moment PID_FILE is written); a reload that cannot be made keeping the keys in use with one
 * line why; and SIGHUP a hundred times a second under load (issue 50).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import { join } from "node:path";
import { keyFileLine } from "../src/mod.ts";
import type { ApiKeyEntry } from "../src/mod.ts";
import type { NodeLineRuntime, Runtime, ServerProcess } from "./server-process.ts";
import { startServer } from "./server-process.ts";
import { openSocket } from "./raw-http.ts";
import { tempFolder } from "./temp.ts";

const SHOP = { name: "shop", key: "shop-key-9f2c1d" } as const;
const REPORTS = { name: "reports", key: "reports-key-41b7", scope: "read" } as const;
const OLD = { name: "old-shop", key: "old-shop-key-77aa", expires: "2020-01-01T00:00:00Z" } as const;
const NEW = { name: "shop-2", key: "shop-2-key-c0ffee" } as const;
const PET = JSON.stringify({ name: "Rex", categoryId: 1 });

/** Writes a key file of `entries` (mode 600) in place of `path`, whole: a new file renamed over it. */
export function writeKeyFile(path: string, entries: readonly ApiKeyEntry[], extra = ""): void {
  writeFileSync(`${path}.new`, `# written by the test\n${entries.map(keyFileLine).join("\n")}\n${extra}`, { mode: 0o600 });
  renameSync(`${path}.new`, path);
}

/** A new key file of `entries` in a temp folder the Deno server may read. */
export function keyFileOf(entries: readonly ApiKeyEntry[]): string {
  const path = join(tempFolder(), "keys");
  writeKeyFile(path, entries);
  return path;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Waits until the server's output holds `count` lines matching `pattern` (at most 10 s); the last of them. */
async function nthLine(server: ServerProcess, pattern: RegExp, count: number): Promise<string> {
  for (const started = Date.now(); Date.now() - started < 10_000; await Bun.sleep(20)) {
    const lines = server.output().split("\n").filter((line) => pattern.test(line));
    if (lines.length >= count) return lines[count - 1]!;
  }
  throw new Error(`no ${count}th line matching ${pattern} in:\n${server.output()}`);
}

/** One kept-alive connection: each request's answer status, read whole before the next is sent. */
function keptAlive(base: string): { ask(head: string): Promise<number>; socket: Socket } {
  const socket = openSocket(base);
  let buffered = "";
  let waiting: ((text: string) => void) | undefined;
  socket.on("data", (chunk) => {
    buffered += chunk.toString("latin1");
    const end = buffered.indexOf("\r\n\r\n");
    const length = Number(/content-length: (\d+)/i.exec(buffered)?.[1] ?? 0);
    if (end !== -1 && buffered.length >= end + 4 + length && waiting !== undefined) {
      const answer = buffered.slice(0, end + 4 + length);
      buffered = buffered.slice(end + 4 + length);
      waiting(answer);
    }
  });
  return {
    socket,
    ask: (head) => new Promise((resolve, reject) => {
      waiting = (answer) => resolve(Number(answer.slice(9, 12)));
      socket.once("close", () => reject(new Error("the kept-alive connection was closed")));
      socket.write(head);
    }),
  };
}

/** Registers the key file's tests for one runtime. */
export function keysSuite(runtime: Runtime | NodeLineRuntime): void {
  describe(`API keys from a file on ${runtime} (issue 50)`, () => {
    test("the access log names each request's key, text and JSON; a read-only key's create is 403, an expired key 401; no key or hash is printed", async () => {
      const path = keyFileOf([SHOP, REPORTS, OLD]);
      for (const format of ["text", "json"] as const) {
        const server = await startServer(runtime, { STORE: "memory", API_KEYS_FILE: path, LOG_FORMAT: format });
        const statuses = [
          (await fetch(`${server.url}/pets`, { method: "POST", headers: { ...bearer(SHOP.key), "content-type": "application/json" }, body: PET })).status,
          (await fetch(`${server.url}/pets`, { method: "POST", headers: { ...bearer(REPORTS.key), "content-type": "application/json" }, body: PET })).status,
          (await fetch(`${server.url}/pets`, { headers: bearer(REPORTS.key) })).status,
          (await fetch(`${server.url}/pets`, { headers: bearer(OLD.key) })).status,
          (await fetch(`${server.url}/pets`, { headers: bearer("not-a-key") })).status,
        ];
        expect(statuses).toEqual([201, 403, 200, 401, 401]);
        expect(await server.stop("SIGTERM")).toBe(0);
        const lines = server.stdout().split("\n").filter((line) => line.includes("/v1/pets"));
        const names = lines.map((line) => format === "json" ? (JSON.parse(line) as { keyName?: string }).keyName : /keyName=(\S+)/.exec(line)?.[1]);
        expect({ format, names }).toEqual({ format, names: ["shop", "reports", "reports", "old-shop", undefined] });
        expect(server.output()).toMatch(/API keys from API_KEYS_FILE \\?"data\/test-runs\/run-\w+\/keys\\?": 3 \(SIGHUP reads it again\)/);
        for (const secret of [SHOP.key, REPORTS.key, OLD.key, keyFileLine(SHOP).split(" ")[1]!.slice(7)]) expect(server.output()).not.toContain(secret);
      }
    }, 40_000);

    test("SIGHUP reads the file again: a new key works from the next request, a removed one is refused, a create in flight is answered as it began, a kept-alive connection stays, one line of counts", async () => {
      const path = keyFileOf([SHOP, REPORTS]);
      await using server = await startServer(runtime, { STORE: "memory", API_KEYS_FILE: path });
      const kept = keptAlive(server.url);
      expect(await kept.ask(`GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${REPORTS.key}\r\n\r\n`)).toBe(200);
      // A create with the key about to go: its headers and half its body before the reload.
      const slow = openSocket(server.url);
      let slowAnswer = "";
      slow.on("data", (chunk) => (slowAnswer += chunk.toString()));
      slow.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${SHOP.key}\r\nContent-Type: application/json\r\nContent-Length: ${PET.length}\r\nConnection: close\r\n\r\n${PET.slice(0, 6)}`);
      await Bun.sleep(300);
      writeKeyFile(path, [REPORTS, NEW]);
      server.signal("SIGHUP");
      expect(await nthLine(server, /reloaded API_KEYS_FILE/, 1)).toBe(`reloaded API_KEYS_FILE "${path}": 1 added, 1 removed, 1 kept (0 of them changed)`);
      slow.write(PET.slice(6));
      await new Promise((resolve) => slow.on("close", resolve));
      // Deno.serve's adapter reads a body whole before the service sees the request (adapters/deno.ts),
      // so there the create begins after the reload, with the new keys (docs/decisions.md).
      expect(slowAnswer).toStartWith(runtime === "deno-serve" ? "HTTP/1.1 401" : "HTTP/1.1 201");
      expect((await fetch(`${server.url}/pets`, { headers: bearer(NEW.key) })).status).toBe(200);
      expect((await fetch(`${server.url}/pets`, { headers: bearer(SHOP.key) })).status).toBe(401);
      expect(await kept.ask(`GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${NEW.key}\r\n\r\n`)).toBe(200);
      kept.socket.destroy();
      expect(await server.stop("SIGTERM")).toBe(0);
    }, 30_000);

    test("SIGHUP sent the moment PID_FILE is written reads the file again: the server handles every signal before it says where it is", async () => {
      const path = keyFileOf([SHOP]);
      const pidFile = join(tempFolder(), "animal-store.pid");
      // A supervisor that signals as soon as it can: a busy loop on the file, then kill -HUP with no process forked between
      // (before the fix, most often the default action: the server gone).
      const watcher = Bun.spawn(["timeout", "30", "bash", "-c", 'until [ -s "$1" ]; do :; done; read -r pid < "$1"; kill -HUP "$pid"', "bash", pidFile], { stdout: "ignore", stderr: "pipe" });
      try {
        await using server = await startServer(runtime, { STORE: "memory", API_KEYS_FILE: path, PID_FILE: pidFile });
        expect(await watcher.exited).toBe(0);
        expect(await nthLine(server, /reloaded API_KEYS_FILE/, 1)).toBe(`reloaded API_KEYS_FILE "${path}": 0 added, 0 removed, 1 kept (0 of them changed)`);
        expect((await fetch(`${server.url}/pets`, { headers: bearer(SHOP.key) })).status).toBe(200);
        expect(await server.stop("SIGTERM")).toBe(0);
      } finally {
        watcher.kill();
      }
    }, 40_000);

    test("a reload that cannot be made keeps the keys in use and says why in one line: a malformed line, no file, a link in its place, a mode others may read", async () => {
      const path = keyFileOf([SHOP]);
      await using server = await startServer(runtime, { STORE: "memory", API_KEYS_FILE: path });
      const target = keyFileOf([NEW]);
      const breakings: [string, () => void, string][] = [
        ["a malformed line", () => writeKeyFile(path, [SHOP], "shop-3 sha256:12ab\n"), 'line 3: "sha256:" must be followed by the key\'s SHA-256 as 64 hexadecimal digits, got 4 characters'],
        ["no file", () => rmSync(path), "there is no such file"],
        ["a link in its place", () => symlinkSync(target, path), "it is a symbolic link, not a regular file"],
        ["a mode others may read", () => (rmSync(path), writeKeyFile(path, [NEW]), chmodSync(path, 0o644)), "its mode 644 lets other users at it"],
      ];
      for (const [index, [what, breakIt, why]] of breakings.entries()) {
        breakIt();
        server.signal("SIGHUP");
        const line = await nthLine(server, /not reloaded/, index + 1);
        expect({ what, line: line.slice(0, line.indexOf(why) + why.length) }).toEqual({ what, line: `animal-store: API_KEYS_FILE "${path}" not reloaded, the 1 key in use stays: ${why}` });
        expect({ what, status: (await fetch(`${server.url}/pets`, { headers: bearer(SHOP.key) })).status }).toEqual({ what, status: 200 });
        expect({ what, status: (await fetch(`${server.url}/pets`, { headers: bearer(NEW.key) })).status }).toEqual({ what, status: 401 });
      }
      chmodSync(path, 0o600);
      server.signal("SIGHUP");
      expect(await nthLine(server, /reloaded API_KEYS_FILE/, 1)).toContain("1 added, 1 removed, 0 kept");
      expect((await fetch(`${server.url}/pets`, { headers: bearer(NEW.key) })).status).toBe(200);
    }, 30_000);

    test("SIGHUP a hundred times a second under load: every request answered 200, the server serves on, and the keys are the file's at the end", async () => {
      const path = keyFileOf([SHOP]);
      await using server = await startServer(runtime, { STORE: "memory", API_KEYS_FILE: path, LOG: "off" });
      let loading = true;
      const statuses = new Map<number, number>();
      const client = async () => {
        while (loading) {
          const status = await fetch(`${server.url}/pets?limit=1`, { headers: bearer(SHOP.key) }).then((response) => response.status, () => 0);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      };
      const clients = Array.from({ length: 8 }, client);
      for (let i = 0; i < 200; i++) {
        server.signal("SIGHUP");
        await Bun.sleep(10);
      }
      loading = false;
      await Promise.all(clients);
      expect([...statuses.keys()]).toEqual([200]);
      expect(statuses.get(200)).toBeGreaterThan(0);
      writeKeyFile(path, [SHOP, NEW]);
      server.signal("SIGHUP");
      await nthLine(server, /^reloaded API_KEYS_FILE .*: 1 added, 0 removed, 1 kept/, 1);
      expect((await fetch(`${server.url}/pets`, { headers: bearer(NEW.key) })).status).toBe(200);
      expect(server.output()).not.toContain("not reloaded");
      expect(await server.stop("SIGTERM")).toBe(0);
    }, 40_000);
  });
}
