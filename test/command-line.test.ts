import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { VERSION } from "../adapters/server/_version.ts";
import { SETTINGS } from "../adapters/server/settings.ts";
import { startServer } from "./server-process.ts";
import { tempFolder } from "./temp.ts";

type Runtime = "bun" | "deno" | "node";
const SCRIPTS: Record<Runtime, string> = { bun: packageJson.scripts.start, deno: packageJson.scripts["start:deno"], node: packageJson.scripts["start:node"] };

/** Runs the standalone server's command for `runtime` with `args`, to its end (at most 20 s). */
async function run(runtime: Runtime, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const [command = "", ...rest] = SCRIPTS[runtime].replace(/^exec /, "").split(" ");
  const local = `node_modules/.bin/${command}`;
  const child = Bun.spawn([existsSync(local) ? local : command, ...rest, ...args], { env: { ...process.env, PORT: "0", ...env }, stdout: "pipe", stderr: "pipe", timeout: 20_000 });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** What a 503 from a broken or hostile server starts with: terminal escapes and a forged second line. */
const HOSTILE_PREFIX = "\x1b[2J\x1b[31mstore down\r\nanimal-store: healthy\n";

/**
 * Answers a health check as servers `health` must not trust do: `/moved` redirects to `/healthy`,
 * which answers 200; `/down` answers 503 with a body that never ends.
 */
const probed = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/healthy") return new Response("ok");
    if (path === "/moved") return new Response(null, { status: 302, headers: { location: "/healthy" } });
    const chunk = new TextEncoder().encode("x".repeat(65536));
    let first = true;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(first ? new TextEncoder().encode(HOSTILE_PREFIX) : chunk);
        first = false;
      },
    });
    return new Response(endless, { status: 503 });
  },
});
afterAll(() => probed.stop(true));

test("the version the server reports is package.json's", () => {
  expect(VERSION).toBe(packageJson.version);
});

for (const runtime of ["bun", "deno", "node"] as const) {
  describe(`the command line on ${runtime}`, () => {
    test("--help prints every flag with its variable and exits 0", async () => {
      const { code, stdout } = await run(runtime, ["--help"]);
      expect(code).toBe(0);
      expect(stdout).toStartWith("Usage: animal-store");
      for (const setting of SETTINGS) expect(stdout).toContain(`${setting.flag} ${setting.variable}`);
    }, 25_000);

    test("--version prints the package's version and the runtime's, and exits 0", async () => {
      const { code, stdout } = await run(runtime, ["--version"]);
      expect(code).toBe(0);
      expect(stdout).toMatch(new RegExp(`^animal-store ${packageJson.version.replaceAll(".", "\\.")} \\(${runtime} \\d+\\.\\d+\\.\\d+\\)\n$`));
    }, 25_000);

    test("an unknown flag exits 2 naming it", async () => {
      const { code, stderr } = await run(runtime, ["--colour", "red"]);
      expect(code).toBe(2);
      expect(stderr).toContain('Unknown argument "--colour"');
    }, 25_000);

    test("HOST=not-a-host exits 2 with one line naming HOST and the fix", async () => {
      const { code, stderr } = await run(runtime, [], { HOST: "not-a-host", STORE: "memory", API_KEYS: "k" });
      expect(code).toBe(2);
      expect(stderr).toMatch(/^animal-store: HOST "not-a-host" is not an address of this machine \(.+\); set HOST to one of its addresses, e\.g\. 127\.0\.0\.1, or 0\.0\.0\.0 for every interface\n$/);
    }, 25_000);

    test("malformed exporter settings exit 2 with one line each, never echoing a header's value", async () => {
      const env = { STORE: "memory", API_KEYS: "k", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_EXPORTER_OTLP_HEADERS: "Authorization: Bearer Zq81-secret", OTEL_EXPORTER_OTLP_TIMEOUT: "10s", OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "zstd" };
      const { code, stderr } = await run(runtime, [], env);
      expect(code).toBe(2);
      expect(stderr.trimEnd().split("\n").map((line) => /^animal-store: (\S+) must /.exec(line)?.[1])).toEqual(["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"]);
      expect(stderr).not.toContain("Zq81-secret");
    }, 25_000);

    test("RATE_LIMIT_SYNC_MS=-5 exits 2 with one line naming it and the range it takes", async () => {
      const { code, stderr } = await run(runtime, [], { STORE: "memory", API_KEYS: "k", RATE_LIMIT: "100/s", RATE_LIMIT_SYNC_MS: "-5" });
      expect(code).toBe(2);
      expect(stderr).toBe('animal-store: RATE_LIMIT_SYNC_MS must be a whole number of milliseconds from 10 to 60000, got "-5"\n');
    }, 25_000);

    test("OTEL_SDK_DISABLED=yes exits 2 with one line naming it (Deno says so itself first, in its own words)", async () => {
      const { code, stderr } = await run(runtime, [], { STORE: "memory", API_KEYS: "k", OTEL_SDK_DISABLED: "yes" });
      expect(code).toBe(2);
      // Deno 2.9 reads OTEL_SDK_DISABLED before any code of ours runs (docs/running.md).
      const ours = stderr.trimEnd().split("\n").filter((line) => runtime !== "deno" || !line.startsWith("'OTEL_SDK_DISABLED' env var value not recognized"));
      expect(ours).toEqual(['animal-store: OTEL_SDK_DISABLED must be "true" or "false", got "yes"']);
    }, 25_000);

    test("a setting's value with line breaks and escapes is echoed escaped, one line per problem: no forged line", async () => {
      const forged = { HOST: "127.0.0.1\nanimal-store: forged", CORS_ORIGINS: "https://a.example\r\nanimal-store: forged", PUBLIC_URL: "https://x.example/\u001b[2J\r\nanimal-store: forged" };
      const { code, stderr } = await run(runtime, [], { ...forged, STORE: "memory", API_KEYS: "k" });
      expect(code).toBe(2);
      const lines = stderr.trimEnd().split("\n");
      expect(lines).toEqual([
        expect.stringMatching(/^animal-store: (PUBLIC_URL|CORS_ORIGINS) /),
        expect.stringMatching(/^animal-store: (PUBLIC_URL|CORS_ORIGINS) /),
      ]);
      expect(stderr).toContain('got "https://a.example\\r\\nanimal-store: forged"');
      expect(stderr).toContain('got "https://x.example/\\x1b[2J\\r\\nanimal-store: forged"');
      const host = await run(runtime, [], { HOST: forged.HOST, STORE: "memory", API_KEYS: "k" });
      expect([host.code, host.stderr]).toEqual([2, expect.stringMatching(/^animal-store: HOST "127\.0\.0\.1\\nanimal-store: forged" is not an address of this machine [^\n]*\n$/)]);
    }, 25_000);

    test("health exits 0 against a running server and 1 once it is gone", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: "k", LOG: "off" });
      const url = `${new URL(server.url).origin}/health`;
      try {
        const healthy = await run(runtime, ["health", "--url", url]);
        expect([healthy.code, healthy.stdout]).toEqual([0, `healthy: ${url}\n`]);
        const byPort = await run(runtime, ["health"], { PORT: new URL(url).port });
        expect(byPort.code).toBe(0);
      } finally {
        expect(await server.stop("SIGTERM")).toBe(0);
      }
      const gone = await run(runtime, ["health", `--url=${url}`]);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toStartWith(`animal-store: unhealthy: ${url}`);
    }, 40_000);

    test("health asks only an http or https URL: data: and file: URLs exit 2 unasked", async () => {
      for (const url of ["data:,ok", "file:///etc/hostname"]) {
        const { code, stdout, stderr } = await run(runtime, ["health", "--url", url]);
        expect({ url, code, stdout, stderr }).toEqual({
          url,
          code: 2,
          stdout: "",
          stderr: "animal-store: health takes only --url with an http or https URL (e.g. --url http://127.0.0.1:8080/health)\n",
        });
      }
    }, 40_000);

    test("health does not follow a redirect: a /health that answers 302 to a healthy server is unhealthy", async () => {
      const url = `http://127.0.0.1:${probed.port}/moved`;
      const { code, stdout, stderr } = await run(runtime, ["health", "--url", url]);
      expect({ code, stdout, stderr }).toEqual({ code: 1, stdout: "", stderr: `animal-store: unhealthy: ${url} answered 302\n` });
    }, 25_000);

    test("health reads a bounded prefix of a 503's endless body and prints one line without its escape codes", async () => {
      const url = `http://127.0.0.1:${probed.port}/down`;
      const started = Date.now();
      const { code, stdout, stderr } = await run(runtime, ["health", "--url", url]);
      // Its 5 s timeout would also end it: the answer comes from the prefix, not from giving up.
      const shown = "\ufffd[2J\ufffd[31mstore down animal-store: healthy ".padEnd(200, "x");
      expect({ code, stdout, stderr }).toEqual({ code: 1, stdout: "", stderr: `animal-store: unhealthy: ${url} answered 503: ${shown}…\n` });
      expect(Date.now() - started).toBeLessThan(15_000);
    }, 25_000);
  });
}

for (const runtime of ["bun", "node"] as const) {
  test.each(["/proc/pets.json", "/proc/new/pets.json"])(`on ${runtime}, DATA_FILE=%s (a folder that takes no files, or cannot be made) exits 2 with one line naming DATA_FILE and the fix`, async (dataFile) => {
    const { code, stderr } = await run(runtime, [], { DATA_FILE: dataFile, API_KEYS: "k" });
    expect({ code, stderr }).toEqual({
      code: 2,
      stderr: `animal-store: DATA_FILE "${dataFile}" cannot be kept in ${dirname(dataFile)} (ENOENT: no file can be made there); set DATA_FILE to a file in a folder this user can write\n`,
    });
  }, 25_000);
}

test("on Deno, DATA_FILE outside data/ exits 2 with one line naming the permission and the fix, no stack", async () => {
  const folder = join(tmpdir(), "animal-store-not-given");
  const { code, stderr } = await run("deno", [], { DATA_FILE: join(folder, "pets.json"), API_KEYS: "k" });
  expect({ code, stderr }).toEqual({
    code: 2,
    stderr: `animal-store: DATA_FILE "${join(folder, "pets.json")}" is in ${folder}, which this Deno server may not read and write (NotCapable); keep DATA_FILE under data/, or give Deno --allow-read=${folder} --allow-write=${folder}\n`,
  });
}, 25_000);

test("DATA_FILE under a file, not a folder, exits 2 naming DATA_FILE before anything is written", async () => {
  const blocker = join(tempFolder(), "not-a-folder");
  writeFileSync(blocker, "");
  const dataFile = join(blocker, "pets.json");
  const { code, stderr } = await run("node", [], { DATA_FILE: dataFile, API_KEYS: "" });
  expect(code).toBe(2);
  expect(stderr).toBe(`animal-store: DATA_FILE "${dataFile}" cannot be kept in ${resolve(blocker)} (it is a file, not a folder); set DATA_FILE to a file in a folder this user can write\n`);
}, 25_000);
