/**
 * @module
 * docs/operating.md's "Several instances, one budget", followed without Docker: the two instances of
 * `deploy/compose.yaml` start, after its `migrate`, with the environment the file gives them under the
 * page's exported variables (the test's own database in place of the `postgres` service, free ports in
 * place of its published ones, the key file the page's line writes, to a folder of the test's, in place
 * of the Compose secret), and the page's loop of `curl`s runs as printed against them. What they allow is
 * one budget, not one each. The image itself is the deploy test's (`npm run test:deploy`).
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerProcess } from "./server-process.ts";
import { parseRateLimit } from "../src/plugs/rate-limit/mod.ts";
import { runCommand } from "./commands.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";

const section = readFileSync("docs/operating.md", "utf8").split("### Several instances, one budget")[1]?.split("\n## ")[0] ?? "";
const [stackBlock = "", loopBlock = ""] = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
/** The variables the page's first block exports. */
const exported = Object.fromEntries([...stackBlock.matchAll(/(?:^export |\s)([A-Z_]+)=(\S+)/gm)].map((match) => [match[1]!, match[2]!]));
const COMPOSE = readFileSync("deploy/compose.yaml", "utf8");
/** What an instance's settings say a client may send at once and per second. */
const SYNC_MS = 1000;
/** What a loaded machine may add to an exchange's round trip. */
const BUSY_MS = 1000;

/** A service's `environment` in compose.yaml, `${NAME:-default}` and `${NAME:?message}` taken from `variables`. */
function serviceEnvironment(service: string, variables: Readonly<Record<string, string>>): Record<string, string> {
  const block = COMPOSE.split(`\n  ${service}:\n`)[1]?.split(/\n  \S/)[0] ?? "";
  const lines = block.split("    environment:\n")[1]?.split(/\n {4}\S/)[0]?.split("\n") ?? [];
  const resolve = (value: string) =>
    value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind: string | undefined, fallback: string) => {
      if (variables[name] !== undefined && variables[name] !== "") return variables[name]!;
      if (kind === "?") throw new Error(`compose.yaml needs ${name}: ${fallback}`);
      return fallback ?? "";
    });
  return Object.fromEntries(lines.map((line) => /^ {6}(\w+): (.*)$/.exec(line)).filter((match) => match !== null).map((match) => [match![1]!, resolve(match![2]!.replace(/^"(.*)"$/, "$1"))]));
}

/** A service's `environment` on the test's database: its `DATABASE_URL` in place of the file the Compose secret would be. */
function withDatabase(environment: Readonly<Record<string, string>>, database: string): Record<string, string> {
  const { DATABASE_URL_FILE, ...rest } = environment;
  expect(DATABASE_URL_FILE).toBe("/run/secrets/database_url");
  return { ...rest, DATABASE_URL: database };
}

test("the page's compose stack gets one budget from its two instances: the printed loop of curls is answered 200 about as one instance alone would", async () => {
  expect(stackBlock).toContain("docker compose -p animal-store -f deploy/compose.yaml up -d");
  const limit = parseRateLimit(exported["RATE_LIMIT"] ?? "");
  if (!limit.ok) throw new Error(`the page's RATE_LIMIT: ${limit.issues.join("; ")}`);
  const database = await (await postgresServer()).createDatabase();
  const folder = mkdtempSync(join(tmpdir(), "shared-limits-page-"));
  const instances: ServerProcess[] = [];
  try {
    // The file's `migrate` service first, as Compose runs it before the instances (which run with MIGRATE=off).
    expect((await runCommand("bun", ["migrate"], { env: { ...withDatabase(serviceEnvironment("migrate", exported), database) } })).code).toBe(0);
    // The page's key line, with `npm start --silent --` for the executable, writing to the test's folder.
    const keyLine = stackBlock.split("\n").find((line) => line.includes(" key --name "))!;
    const keyFile = join(folder, "api-keys");
    const writeKeys = keyLine.replace("dist/animal-store", "npm start --silent --").replace("> deploy/api-keys", `> ${keyFile}`);
    expect(writeKeys).not.toContain("deploy/api-keys");
    const written = Bun.spawnSync(["bash", "-e", "-o", "pipefail", "-c", writeKeys], { env: { ...process.env, ...exported }, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
    expect([written.exitCode, written.stderr.toString()]).toEqual([0, ""]);
    for (const service of ["store-1", "store-2"]) {
      const environment = serviceEnvironment(service, exported);
      expect([environment["RATE_LIMIT"], environment["API_KEYS_FILE"]]).toEqual([exported["RATE_LIMIT"], "/run/secrets/api_keys"]);
      // The image's Bun executable, on the test's database, a free port and the key file.
      instances.push(await startServer("bun", { ...withDatabase(environment, database), API_KEYS_FILE: keyFile, PORT: "0", METRICS_PORT: "0" }));
    }
    const ports = instances.map((instance) => new URL(instance.url).port);
    const loop = loopBlock.replace("for port in 8081 8082;", `for port in ${ports.join(" ")};`);
    expect(loop).not.toBe(loopBlock);
    const started = performance.now();
    const run = Bun.spawnSync(["bash", "-e", "-o", "pipefail", "-c", loop], { env: { ...process.env, ...exported }, stdout: "pipe", stderr: "pipe", timeout: 120_000 });
    const seconds = (performance.now() - started) / 1000;
    expect(run.stderr.toString()).toBe("");
    const counts = Object.fromEntries(run.stdout.toString().trim().split("\n").map((line) => line.trim().split(/\s+/).reverse() as [string, string]));
    const sent = Number(/seq (\d+)/.exec(loopBlock)?.[1]) * instances.length;
    expect(Number(counts["200"] ?? 0) + Number(counts["429"] ?? 0)).toBe(sent);
    const { requests, seconds: per, burst = requests } = limit.value;
    // One instance's budget, and what the other may allow within an exchange before it hears.
    const bound = burst + (requests / per) * seconds + (sent / instances.length / seconds) * ((SYNC_MS + BUSY_MS) / 1000);
    expect(Number(counts["200"])).toBeGreaterThanOrEqual(burst);
    expect(Number(counts["200"])).toBeLessThanOrEqual(bound);
    // Alone, each instance would have allowed its own burst.
    expect(bound).toBeLessThan(instances.length * burst);
  } finally {
    await Promise.all(instances.map((instance) => instance.stop("SIGKILL")));
    rmSync(folder, { recursive: true, force: true });
  }
}, 120_000);
