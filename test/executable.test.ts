/**
 * The single executable `npm run build:exe` makes (`dist/animal-store`, Bun's `--compile`), built once
 * and run from a folder of its own with no runtime on the PATH: its command line, every store over
 * HTTP, the reference page, and a clean stop on SIGTERM that loses nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import packageJson from "../package.json" with { type: "json" };
import { SETTINGS } from "../adapters/server/settings.ts";
import { captureOutput } from "./output.ts";
import { expectPageRun, runKeysPage } from "./keys-page.ts";
import { postgresServer } from "./postgres-server.ts";
import { startOtlpReceiver } from "./fixtures/otlp-receiver.ts";
import { UNPRIVILEGED } from "./server-process.ts";
import { tempFolder } from "./temp.ts";

const KEY = "exe-test-key";
const AUTH = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
/** No Node, Bun or node_modules on the PATH: the executable must need none of them. */
const BARE_ENV = { PATH: "/usr/bin:/bin", HOME: "/tmp" };

let folder = "";
let exe = "";

beforeAll(() => {
  const built = Bun.spawnSync(["npm", "run", "build:exe"], { stdout: "pipe", stderr: "pipe", timeout: 120_000 });
  if (built.exitCode !== 0) throw new Error(`npm run build:exe failed:\n${built.stdout}${built.stderr}`);
  // A copy of its own, so that another test's `npm run build` (which empties dist/) cannot remove it.
  folder = resolve(tempFolder());
  exe = join(folder, "animal-store");
  copyFileSync("dist/animal-store", exe);
}, 130_000);

/** Runs the executable to its end (at most 20 s). */
async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([exe, ...args], { cwd: folder, env: { ...BARE_ENV, ...env }, stdout: "pipe", stderr: "pipe", timeout: 20_000 });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** A running executable and the base URL it printed. */
interface Started {
  readonly url: string;
  readonly child: Subprocess<"ignore", "pipe", "pipe">;
  output(): string;
}

const running = new Set<Started>();
afterAll(() => {
  for (const server of running) server.child.kill("SIGKILL");
});

/** Starts the executable; with `reader`, a shell command reads its stdout in place of the test (what it prints is the output). */
async function start(env: Record<string, string>, reader?: string): Promise<Started> {
  const command = reader === undefined ? [exe] : ["bash", "-c", `exec > >(${reader}); exec "$@"`, "bash", exe];
  const child = Bun.spawn(command, { cwd: folder, env: { ...BARE_ENV, PORT: "0", API_KEYS: KEY, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const output = captureOutput(child);
  const started = { child, output, url: "" };
  running.add(started);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(output())?.[1];
    if (url !== undefined) return { ...started, url };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the executable did not start (exit ${child.exitCode}):\n${output()}`);
    await Bun.sleep(20);
  }
}

async function stop(server: Started, signal: NodeJS.Signals = "SIGTERM"): Promise<number> {
  server.child.kill(signal);
  const code = await server.child.exited;
  for (const started of running) if (started.child === server.child) running.delete(started);
  return code;
}

async function createPet(url: string, name: string): Promise<Response> {
  return await fetch(`${url}/pets`, { method: "POST", headers: AUTH, body: JSON.stringify({ name, categoryId: 1 }) });
}

async function petNames(url: string): Promise<string[]> {
  const response = await fetch(`${url}/pets?limit=100`, { headers: AUTH });
  expect(response.status).toBe(200);
  return ((await response.json()) as { name: string }[]).map((pet) => pet.name).sort();
}

describe("the executable's command line", () => {
  test("npm run build:exe makes dist/animal-store", () => {
    expect(existsSync("dist/animal-store")).toBe(true);
  });

  test("--help prints every flag with its variable and exits 0", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    for (const setting of SETTINGS) expect(stdout).toContain(`${setting.flag} ${setting.variable}`);
  });

  test("--version prints the package's version and Bun's, and exits 0", async () => {
    const { code, stdout } = await run(["--version"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^animal-store ${packageJson.version.replaceAll(".", "\\.")} \\(bun \\d+\\.\\d+\\.\\d+\\)\n$`));
  });

  test("PORT=80 for a user who may not take it exits 2 with one line naming PORT and the fix", async () => {
    // As user nobody when the tests run as root: the folder must let it in.
    chmodSync(folder, 0o755);
    const asUser = process.getuid?.() === 0 ? UNPRIVILEGED : [];
    const child = Bun.spawn([...asUser, exe], { cwd: folder, env: { ...BARE_ENV, PORT: "80", STORE: "memory", API_KEYS: KEY }, stdout: "pipe", stderr: "pipe", timeout: 20_000 });
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect({ code, stderr }).toEqual({ code: 2, stderr: "animal-store: Cannot listen on 127.0.0.1:80: permission denied (EACCES); ports below 1024 need root or the CAP_NET_BIND_SERVICE capability: choose a PORT from 1024 up\n" });
  });

  test("a HOST with a line break is echoed escaped in one line: no forged line", async () => {
    const { code, stderr } = await run([], { HOST: "127.0.0.1\nanimal-store: forged", STORE: "memory", API_KEYS: KEY });
    expect([code, stderr]).toEqual([2, expect.stringMatching(/^animal-store: HOST "127\.0\.0\.1\\nanimal-store: forged" is not an address of this machine [^\n]*\n$/)]);
  });

  test("an unknown flag exits 2 naming it", async () => {
    const { code, stderr } = await run(["--colour"]);
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown argument "--colour"');
  });
});

describe("the executable serving", () => {
  test("the file store: pets created, listed, fetched; 404, 401, the reference page and /health answer", async () => {
    const server = await start({ STORE: "file", DATA_FILE: "data/first.json" });
    try {
      const created = await createPet(server.url, "Rex");
      expect(created.status).toBe(201);
      const pet = (await created.json()) as { id: number };
      expect((await fetch(`${server.url}/pets/${pet.id}`, { headers: AUTH })).status).toBe(200);
      expect((await fetch(`${server.url}/pets/999999`, { headers: AUTH })).status).toBe(404);
      expect((await fetch(`${server.url}/pets`)).status).toBe(401);
      expect(await petNames(server.url)).toEqual(["Rex"]);
      const page = await fetch(new URL("/", server.url));
      expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
      expect(await page.text()).toContain("Animal Store");
      expect((await fetch(new URL("/health", server.url))).status).toBe(200);
    } finally {
      expect(await stop(server)).toBe(0);
    }
    expect(existsSync(join(folder, "data", "first.json"))).toBe(true);
  }, 30_000);

  test("SIGTERM with creates in flight: stopped, exit 0, and every pet acknowledged is there after a restart", async () => {
    const env = { STORE: "file", DATA_FILE: "data/second.json" };
    const server = await start(env);
    const names = Array.from({ length: 40 }, (_, i) => `Pet ${String(i).padStart(2, "0")}`);
    const sent = names.map((name) => createPet(server.url, name).then((response) => (response.status === 201 ? name : undefined), () => undefined));
    await sent[0];
    const code = await stop(server);
    const acknowledged = (await Promise.all(sent)).filter((name) => name !== undefined).sort();
    expect(code).toBe(0);
    expect(server.output()).toContain("stopped");
    expect(acknowledged.length).toBeGreaterThan(0);
    const again = await start(env);
    try {
      expect(await petNames(again.url)).toEqual(acknowledged);
    } finally {
      expect(await stop(again)).toBe(0);
    }
  }, 30_000);

  test("API_KEYS_FILE, made with its own key command: the names in the log, a read-only key's 403, and SIGHUP reading the file again (issue 50)", async () => {
    const keyFile = join(folder, "data", "keys");
    mkdirSync(join(folder, "data"), { recursive: true });
    const made = [await run(["key", "--name", "shop", "--key-out", "data/shop.key"]), await run(["key", "--name", "reports", "--scope", "read", "--key-out", "data/reports.key"])];
    expect(made.map((result) => result.code)).toEqual([0, 0]);
    writeFileSync(keyFile, made.map((result) => result.stdout).join(""), { mode: 0o600 });
    const bearerOf = (name: string) => ({ authorization: `Bearer ${readFileSync(join(folder, "data", `${name}.key`), "utf8").trim()}` });
    const [shop, reports] = [bearerOf("shop"), bearerOf("reports")];
    const server = await start({ STORE: "memory", API_KEYS: "", API_KEYS_FILE: "data/keys", PID_FILE: "data/exe.pid" });
    try {
      expect((await fetch(`${server.url}/pets`, { method: "POST", headers: { ...shop, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' })).status).toBe(201);
      expect((await fetch(`${server.url}/pets`, { method: "POST", headers: { ...reports, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' })).status).toBe(403);
      // The shop's key revoked: its line gone, the file read again on SIGHUP sent to the pid in PID_FILE.
      writeFileSync(keyFile, made[1]!.stdout, { mode: 0o600 });
      process.kill(Number(readFileSync(join(folder, "data", "exe.pid"), "utf8")), "SIGHUP");
      while (!server.output().includes("reloaded API_KEYS_FILE")) await Bun.sleep(20);
      expect(server.output()).toContain('reloaded API_KEYS_FILE "data/keys": 0 added, 1 removed, 1 kept (0 of them changed)');
      expect((await fetch(`${server.url}/pets`, { headers: shop })).status).toBe(401);
      expect((await fetch(`${server.url}/pets`, { headers: reports })).status).toBe(200);
    } finally {
      expect(await stop(server)).toBe(0);
    }
    expect(server.output()).toMatch(/POST \/v1\/pets 201 \d+ [\d.]+ms keyName=shop\n/);
    expect(server.output()).toMatch(/POST \/v1\/pets 403 \d+ [\d.]+ms keyName=reports\n/);
    expect(existsSync(join(folder, "data", "exe.pid"))).toBe(false);
  }, 30_000);

  test("docs/operating.md's API keys section runs as printed on the executable (issue 50)", async () => {
    expectPageRun(await runKeysPage(exe));
  }, 90_000);

  test("SIGHUP (a closed terminal) without API_KEYS_FILE stops it as SIGTERM does: stopped, exit 0, the data file's lock released", async () => {
    const server = await start({ STORE: "file", DATA_FILE: "data/hangup.json" });
    expect((await createPet(server.url, "Hup")).status).toBe(201);
    expect(await stop(server, "SIGHUP")).toBe(0);
    expect(server.output()).toContain("stopped");
    expect(existsSync(join(folder, "data", "hangup.json.lock"))).toBe(false);
  }, 30_000);

  test("the memory store", async () => {
    const server = await start({ STORE: "memory" });
    try {
      expect((await createPet(server.url, "Tom")).status).toBe(201);
      expect(await petNames(server.url)).toEqual(["Tom"]);
    } finally {
      expect(await stop(server)).toBe(0);
    }
  }, 30_000);

  for (const protocol of ["http/protobuf", "http/json"]) {
    test(`traces over OTLP/HTTP (${protocol}), the SDK bundled: the caller's trace id kept in the span and the log line`, async () => {
      const receiver = startOtlpReceiver();
      const server = await start({ STORE: "memory", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      try {
        const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        const listed = await fetch(`${server.url}/pets`, { headers: { ...AUTH, traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
        expect(listed.status).toBe(200);
        expect(await stop(server)).toBe(0);
        const [span] = await receiver.waitFor((received) => received.name === "GET /v1/pets", 1);
        expect(span?.traceId).toBe(traceId);
        expect(server.output()).toContain(`trace=${traceId} span=${span?.spanId}`);
      } finally {
        await receiver.stop();
      }
    }, 30_000);
  }

  test("the PostgreSQL store, through Bun's built-in client", async () => {
    const databaseUrl = await (await postgresServer()).createDatabase();
    const server = await start({ STORE: "postgres", DATABASE_URL: databaseUrl });
    try {
      expect(server.output()).toContain("opened PostgreSQL database");
      expect((await createPet(server.url, "Kit")).status).toBe(201);
      expect(await petNames(server.url)).toEqual(["Kit"]);
    } finally {
      expect(await stop(server)).toBe(0);
    }
  }, 60_000);

  test("a dangling link, a link to another file or a FIFO at the key file: exit 1 at once naming it, no key printed", async () => {
    const kinds = { dangling: "a symbolic link", linked: "a symbolic link", fifo: "a FIFO" };
    for (const [kind, what] of Object.entries(kinds)) {
      const keyFile = join(folder, kind, "api-key");
      mkdirSync(join(folder, kind));
      writeFileSync(join(folder, kind, "other"), "someone-elses-token\n", { mode: 0o600 });
      if (kind === "fifo") expect(Bun.spawnSync(["mkfifo", keyFile]).exitCode).toBe(0);
      else symlinkSync(kind === "linked" ? "other" : "nowhere", keyFile);
      const { code, stdout, stderr } = await run([], { STORE: "file", DATA_FILE: `${kind}/pets.json`, PORT: "0" });
      expect({ kind, code, stdout, stderr }).toEqual({
        kind,
        code: 1,
        stdout: "",
        stderr: `animal-store: Cannot use ${kind}/api-key: it is ${what}, not a regular file; delete it to have a new one made, or set API_KEYS\n`,
      });
    }
  }, 70_000);

  test("health asks only http(s), follows no redirect, and reads a bounded prefix of a 503 into one clean line", async () => {
    const endless = () => new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(new TextEncoder().encode("\x1b[31mdown\n".repeat(4096))) });
    const probed = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => new URL(request.url).pathname === "/moved" ? Response.redirect("/health", 302) : new Response(endless(), { status: 503 }),
    });
    try {
      expect((await run(["health", "--url", "file:///etc/hostname"])).code).toBe(2);
      const moved = await run(["health", "--url", `http://127.0.0.1:${probed.port}/moved`]);
      expect({ code: moved.code, stderr: moved.stderr }).toEqual({ code: 1, stderr: `animal-store: unhealthy: http://127.0.0.1:${probed.port}/moved answered 302\n` });
      const down = await run(["health", "--url", `http://127.0.0.1:${probed.port}/health`]);
      const shown = "\ufffd[31mdown ".repeat(20).slice(0, 200);
      expect({ code: down.code, stderr: down.stderr }).toEqual({ code: 1, stderr: `animal-store: unhealthy: http://127.0.0.1:${probed.port}/health answered 503: ${shown}…\n` });
    } finally {
      await probed.stop(true);
    }
  }, 30_000);

  test("a stdout reader that exits (`| sed '/listening on/q'`): every request is still answered, stderr says so once, SIGTERM exits 0", async () => {
    const server = await start({ STORE: "memory" }, "sed -u '/listening on/q'");
    try {
      for (let i = 0; i < 20; i++) {
        expect((await fetch(`${server.url}/pets`, { headers: AUTH })).status).toBe(200);
        await Bun.sleep(20);
      }
      expect(server.output().match(/stdout is closed \(EPIPE\)/g)).toHaveLength(1);
    } finally {
      expect(await stop(server)).toBe(0);
    }
  }, 30_000);

  test("health exits 0 against the running server, 1 once it has stopped", async () => {
    const server = await start({ STORE: "memory" });
    const url = `${new URL(server.url).origin}/health`;
    try {
      expect((await run(["health", "--url", url])).code).toBe(0);
      expect((await run(["health"], { PORT: new URL(url).port })).code).toBe(0);
    } finally {
      expect(await stop(server)).toBe(0);
    }
    expect((await run(["health", "--url", url])).code).toBe(1);
  }, 30_000);
});
