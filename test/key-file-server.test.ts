/**
 * The server's keys and secrets from files (issue 50), on Bun: every bad key file stops the start with
 * exit 2 and one line naming the file and the line; a file that changes while it is read is refused,
 * never half read; `animal-store key` prints a new key's line; `PID_FILE`; the `*_FILE` settings and
 * the warning for a secret given on the command line. The reload on every runtime is `keys-suite.ts`.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createKeyRing, keyFileLine } from "../src/mod.ts";
import { readKeyFile } from "../adapters/server/key-file.ts";
import { readConfig, settingsOf } from "../adapters/server/config.ts";
import { readSecretFiles } from "../adapters/server/secret-settings.ts";
import { keyFileOf } from "./keys-suite.ts";
import { captureOutput } from "./output.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { tempFolder } from "./temp.ts";

const hex = (key: string) => createHash("sha256").update(key).digest("hex");
const BUN = "node_modules/.bin/bun";

/** Runs the server (or a command of it) on Bun to its end, at most 20 s. */
async function run(args: readonly string[], env: Record<string, string | undefined> = {}, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([BUN, "adapters/server/start-bun.ts", ...args], {
    env: { ...process.env, PORT: "0", STORE: "memory", API_KEYS: undefined, API_KEYS_FILE: undefined, ...env },
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 20_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** A file of `text` (or bytes) in a new temp folder, mode 600 unless told. */
function fileOf(content: string | Uint8Array, mode = 0o600): string {
  const path = join(tempFolder(), "keys");
  writeFileSync(path, content, { mode });
  chmodSync(path, mode);
  return path;
}

const GOOD = `shop sha256:${hex("k1")}\n`;

describe("a bad key file stops the start: exit 2, one line naming the file and the line (issue 50)", () => {
  test.each([
    ["a duplicate name", `a sha256:${hex("k1")}\na sha256:${hex("k2")}\n`, ', line 2: the name "a" is already line 1\'s'],
    ["a duplicate key", `a k1\nb sha256:${hex("k1")}\n`, ', line 2: the same key as line 1 ("a")'],
    ["a malformed hash", "a sha256:abc\n", ', line 1: "sha256:" must be followed by the key\'s SHA-256 as 64 hexadecimal digits, got 3 characters'],
    ["an unknown field", "a k1 owner=me\n", ', line 1: unknown field "owner=me"; the fields are scope=read (or write) and expires=<RFC 3339 time>'],
    ["an unknown scope", "a k1 scope=admin\n", ', line 1: unknown scope "admin"; the scopes are read and write (the default)'],
    ["an expiry in the past for every key", "a k1 expires=2020-01-01T00:00:00Z\n", ": every key in it has expired (the last at 2020-01-01T00:00:00.000Z), so no request would be accepted"],
    ["a key a bearer token cannot carry", "a k1;2\n", ", line 1: the key holds characters a bearer token cannot carry (letters, digits and -._~+/, then = at the end only)"],
    ["CRLF", "# keys\r\na k1\r\n", ", line 1: the line ends with a carriage return (CRLF); save the file with LF line ends"],
    ["a BOM", `\ufeff${GOOD}`, ": line 1: the file starts with a byte order mark (U+FEFF); save it as UTF-8 without one"],
    ["a 10 MB line", `${GOOD}# ${"x".repeat(10 * 1024 * 1024)}\n`, ", line 2: the line is longer than 4096 bytes"],
    ["no key in it", "# nothing yet\n", ": it holds no key: write one a line, a name and the key's sha256:<hash> (animal-store key prints such a line)"],
  ])("%s", async (_, text, problem) => {
    const path = fileOf(text);
    const { code, stderr } = await run([], { API_KEYS_FILE: path });
    const firstLine = problem.startsWith(": line") ? `animal-store: API_KEYS_FILE "${path}", line${problem.slice(6)}` : `animal-store: API_KEYS_FILE "${path}"${problem}`;
    expect({ code, stderr: stderr.split("\n")[0] }).toEqual({ code: 2, stderr: firstLine });
    expect(stderr).not.toContain(hex("k1"));
  });

  test("invalid UTF-8, named by its line", async () => {
    const path = fileOf(new Uint8Array([...new TextEncoder().encode(`${GOOD}# caf`), 0xe9, 0x0a]));
    expect(await run([], { API_KEYS_FILE: path })).toMatchObject({ code: 2, stderr: `animal-store: API_KEYS_FILE "${path}", line 2: it is not UTF-8; save the file as UTF-8\n` });
  });

  test.each([
    ["a symbolic link", (path: string) => symlinkSync(fileOf(GOOD), path), "it is a symbolic link, not a regular file"],
    ["a FIFO", (path: string) => Bun.spawnSync(["mkfifo", "-m", "600", path]), "it is a FIFO, not a regular file"],
    ["a file others may read", (path: string) => writeFileSync(path, GOOD, { mode: 0o644 }), "its mode 644 lets other users at it (chmod 600 it if no one else could have read it)"],
    ["a file over 32 MiB", (path: string) => (writeFileSync(path, GOOD, { mode: 0o600 }), truncateSync(path, 32 * 1024 * 1024 + 1)), "it holds more than 33554432 bytes"],
    ["no file", () => {}, "there is no such file"],
  ])("%s", async (_, make, problem) => {
    const path = join(tempFolder(), "keys");
    make(path);
    expect(await run([], { API_KEYS_FILE: path })).toMatchObject({ code: 2, stderr: `animal-store: API_KEYS_FILE "${path}": ${problem}\n` });
  });

  test("API_KEYS beside API_KEYS_FILE", async () => {
    const { code, stderr } = await run([], { API_KEYS_FILE: fileOf(GOOD), API_KEYS: "k" });
    expect({ code, stderr }).toEqual({ code: 2, stderr: "animal-store: API_KEYS and API_KEYS_FILE are both set: set one (API_KEYS_FILE keeps the secret out of the environment and the command line)\n" });
  });
});

test("a key file that changes while it is read is refused, never read half old, half new (issue 50)", async () => {
  const linesOf = (name: string) => Array.from({ length: 40_000 }, (_, i) => keyFileLine({ name: `${name}-${i}`, key: `${name}-key-${i}` })).join("\n") + "\n";
  const versions = [linesOf("a"), linesOf("bb")];
  const folder = tempFolder();
  const path = join(folder, "keys");
  for (const [i, text] of versions.entries()) writeFileSync(join(folder, `v${i}`), text, { mode: 0o600 });
  writeFileSync(path, versions[0]!, { mode: 0o600 });
  // Written over in place, again and again: `cp` truncates the file and writes it anew.
  const writer = Bun.spawn(["bash", "-c", `while true; do cp ${folder}/v1 ${path}; cp ${folder}/v0 ${path}; done`]);
  const seen = new Set<string>();
  try {
    for (let reads = 0, started = Date.now(); Date.now() - started < 10_000 && reads < 200; reads++) {
      const read = await readKeyFile(path);
      if (!read.ok) seen.add(read.issues[0]!);
      else {
        const ring = createKeyRing(read.value);
        const version = ["a", "bb"].filter((name) => [0, 39_999].every((i) => ring.keyOf(new Request("http://x/", { headers: { authorization: `Bearer ${name}-key-${i}` } })).key?.name === `${name}-${i}`));
        seen.add(`whole ${read.value.size} keys, version ${version.join(" and ")}`);
      }
    }
  } finally {
    writer.kill();
    await writer.exited;
  }
  // Whole versions may be read between two copies; anything else, an empty file or half of one, is refused.
  // On a busy machine `cp` may truncate the file and then wait past the settling time before its first
  // write: that empty file is refused too, as holding no key.
  const changed = "it changed while it was read; write a new file beside it and rename it into place (mv), which is never seen half written";
  const empty = (outcome: string) => outcome.startsWith("it holds no key: ");
  const whole = ["whole 40000 keys, version a", "whole 40000 keys, version bb"];
  expect([...seen].filter((outcome) => outcome !== changed && !empty(outcome) && !whole.includes(outcome))).toEqual([]);
  expect(seen.has(changed)).toBe(true);
}, 30_000);

test("a key file replaced by a rename while it is read is taken as it was opened: the old file, whole, not refused as changed (issue 53)", async () => {
  const folder = tempFolder();
  const path = join(folder, "keys");
  writeFileSync(path, `${keyFileLine({ name: "old", key: "old-key" })}\n`, { mode: 0o600 });
  const opened = realpathSync(path);
  // Written a moment ago, so the read holds the file open for the settling time: replaced meanwhile,
  // as the refusal itself tells users to replace it (a new file renamed into place).
  const reading = readKeyFile(path);
  while (!readdirSync("/proc/self/fd").some((fd) => readlinkOr(`/proc/self/fd/${fd}`) === opened)) await Bun.sleep(1);
  writeFileSync(`${path}.new`, `${keyFileLine({ name: "new", key: "new-key" })}\n`, { mode: 0o600 });
  renameSync(`${path}.new`, path);
  const read = await reading;
  const nameOf = (read: Awaited<ReturnType<typeof readKeyFile>>, key: string) =>
    read.ok ? createKeyRing(read.value).keyOf(new Request("http://x/", { headers: { authorization: `Bearer ${key}` } })).key?.name : read.issues;
  expect(nameOf(read, "old-key")).toBe("old");
  expect(nameOf(await readKeyFile(path), "new-key")).toBe("new");
});

/** Where a link points, or `undefined` once it is gone. */
function readlinkOr(link: string): string | undefined {
  try {
    return readlinkSync(link);
  } catch {
    return undefined;
  }
}

describe("animal-store key prints the line of a key file for a new key (issue 50)", () => {
  test("a generated key: the line on stdout holds its SHA-256, the key is printed once on stderr, and the server takes the line", async () => {
    const { code, stdout, stderr } = await run(["key", "--name", "shop", "--scope", "read", "--expires", "2099-01-01T00:00:00Z"]);
    const key = /: ([A-Za-z0-9_-]{43})\n$/.exec(stderr)?.[1] ?? "";
    expect({ code, stdout, stderr }).toEqual({
      code: 0,
      stdout: `shop sha256:${hex(key)} scope=read expires=2099-01-01T00:00:00Z\n`,
      stderr: `animal-store: the key for shop, for its client (the line holds only its SHA-256; it is printed this once): ${key}\n`,
    });
    await using server = await startServer("bun", { STORE: "memory", API_KEYS_FILE: fileOf(stdout) });
    expect((await fetch(`${server.url}/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  test("--key-out writes the key to a new file of mode 600, never over another; --stdin takes yours", async () => {
    const out = join(tempFolder(), "shop.key");
    const written = await run(["key", "--name=shop", `--key-out=${out}`]);
    const key = readFileSync(out, "utf8").trim();
    expect(written).toEqual({ code: 0, stdout: `shop sha256:${hex(key)}\n`, stderr: `animal-store: the key for shop is in ${out} (mode 600), for its client\n` });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(await run(["key", "--name", "other", "--key-out", out])).toMatchObject({ code: 1, stderr: `animal-store: --key-out ${out} exists; choose a new file, a key is never written over another\n` });
    expect(await run(["key", "--name", "mine", "--stdin"], {}, "my-own-key-123\n")).toEqual({ code: 0, stdout: `mine sha256:${hex("my-own-key-123")}\n`, stderr: "" });
  });

  test.each([
    [["key"], "key needs --name NAME, the name the access log and traces give the key's client"],
    [["key", "--name", "a b"], 'the name must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, got "a b"'],
    [["key", "--name", "a", "--scope", "admin"], 'the scope must be "read" or "write", got "admin"'],
    [["key", "--name", "a", "--expires", "tomorrow"], 'the expiry must be an RFC 3339 time such as 2026-12-31T00:00:00Z (or with an offset, +02:00), got "tomorrow"'],
    [["key", "--name", "a", "secret-on-the-command-line"], 'key takes --name, --scope, --expires, --key-out, --stdin, got "secret-on-the-command-line"; the key itself never goes on the command line (--stdin reads it)'],
  ])("refuses %p with exit 2", async (args, problem) => {
    const result = await run(args);
    expect(result).toEqual({ code: 2, stdout: "", stderr: `animal-store: ${problem}\n` });
  });

  test("--stdin refuses a key a bearer token cannot carry, or two lines, without echoing it", async () => {
    expect(await run(["key", "--name", "a", "--stdin"], {}, "has a space\n")).toEqual({ code: 2, stdout: "", stderr: "animal-store: the key holds characters a bearer token cannot carry (letters, digits and -._~+/, then = at the end only)\n" });
    expect(await run(["key", "--name", "a", "--stdin"], {}, "one\ntwo\n")).toEqual({ code: 2, stdout: "", stderr: "animal-store: --stdin needs the key on stdin, one line\n" });
  });
});

describe("secrets from files, and secrets on the command line (issue 50)", () => {
  test("PID_FILE holds the server's process id while it runs, and is gone after a graceful stop", async () => {
    const pidFile = join(tempFolder(), "animal-store.pid");
    const server = await startServer("bun", { STORE: "memory", API_KEYS_FILE: keyFileOf([{ name: "a", key: "k" }]), PID_FILE: pidFile });
    const pid = Number(readFileSync(pidFile, "utf8"));
    process.kill(pid, "SIGHUP");
    while (!server.output().includes("reloaded API_KEYS_FILE")) await Bun.sleep(20);
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
  });

  test("DATABASE_URL_FILE: the URL read from a file of mode 600, the password printed nowhere", async () => {
    const url = await (await postgresServer()).createDatabase();
    const urlFile = fileOf(`${url}\n`);
    await using server = await startServer("bun", { STORE: "postgres", DATABASE_URL_FILE: urlFile, API_KEYS: "k" });
    expect((await fetch(`${server.url}/pets`, { headers: { authorization: "Bearer k" } })).status).toBe(200);
    expect(server.output()).toContain("opened PostgreSQL database");
    const password = new URL(url).password;
    if (password !== "") expect(server.output()).not.toContain(password);
  });

  test.each([
    ["DATABASE_URL_FILE", "postgres://u:pw@h/d", 0o644, "its mode 644 lets other users at it (chmod 600 it if no one else could have read it)"],
    ["OTEL_EXPORTER_OTLP_HEADERS_FILE", "", 0o600, "it is empty"],
  ])("%s that cannot be used stops the start with exit 2, never echoing what it holds", async (variable, text, mode, problem) => {
    const path = fileOf(text, mode);
    expect(await run([], { API_KEYS: "k", [variable]: path })).toEqual({ code: 2, stdout: "", stderr: `animal-store: ${variable} "${path}" cannot be used: ${problem}\n` });
  });

  test("the OTLP headers read from their files are the exporter's, the traces' own winning", async () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_EXPORTER_OTLP_HEADERS_FILE: fileOf("Authorization=Basic%20YWJj,x-tenant=pets\n"), OTEL_EXPORTER_OTLP_TRACES_HEADERS_FILE: fileOf("x-tenant=traces") };
    const files = await readSecretFiles(settingsOf(env, [], []));
    const config = readConfig(env, [], files.ok ? files.value : {});
    expect(config.ok && config.value.trace?.headers).toEqual({ Authorization: "Basic YWJj", "x-tenant": "traces" });
  });

  test("--api-keys and --database-url on the command line warn once each, naming the file setting; the key is never printed", async () => {
    const child = Bun.spawn([BUN, "adapters/server/start-bun.ts", "--api-keys", "cmdline-key-123", "--api-keys=cmdline-key-123", "--database-url", "postgres://u:cmdline-password@127.0.0.1:1/d"], {
      env: { ...process.env, PORT: "0", STORE: "memory", API_KEYS: undefined },
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = captureOutput(child);
    while (!output().includes("listening on") && child.exitCode === null) await Bun.sleep(20);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    const stderr = output().split("\n").filter((line) => !output.stdout().includes(line));
    expect(stderr.filter((line) => line !== "")).toEqual([
      "animal-store: --api-keys on the command line can be read by every user of this machine (ps, /proc); put it in a file of mode 600 and set API_KEYS_FILE instead",
      "animal-store: --database-url on the command line can be read by every user of this machine (ps, /proc); put it in a file of mode 600 and set DATABASE_URL_FILE instead",
    ]);
    expect(output()).not.toContain("cmdline-key-123");
    expect(output()).not.toContain("cmdline-password");
  });
});
