import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
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
  });
}

test("DATA_FILE in a folder that takes no files exits 2 with one line naming DATA_FILE and the fix", async () => {
  const { code, stderr } = await run("bun", [], { DATA_FILE: "/proc/pets.json", API_KEYS: "k" });
  expect(code).toBe(2);
  expect(stderr).toBe('animal-store: DATA_FILE "/proc/pets.json" cannot be kept in /proc (ENOENT: no file can be made there); set DATA_FILE to a file in a folder this user can write\n');
});

test("DATA_FILE under a file, not a folder, exits 2 naming DATA_FILE before anything is written", async () => {
  const blocker = join(tempFolder(), "not-a-folder");
  writeFileSync(blocker, "");
  const dataFile = join(blocker, "pets.json");
  const { code, stderr } = await run("node", [], { DATA_FILE: dataFile, API_KEYS: "" });
  expect(code).toBe(2);
  expect(stderr).toBe(`animal-store: DATA_FILE "${dataFile}" cannot be kept in ${resolve(blocker)} (it is a file, not a folder); set DATA_FILE to a file in a folder this user can write\n`);
}, 25_000);
