/**
 * @module
 * docs/operating.md's "API keys" section, run as printed (issue 50): its `sh` blocks in order, each whole
 * by bash in the repository's root, the server's block in the background; for the executable with
 * `dist/animal-store` written for `npm start --silent --` and `npm start`, as the page says. What the page
 * says the commands print is checked against what they print. Only 8080 is replaced (by a free port),
 * and the server keeps pets in memory; the files the page makes in `data/` are removed at the end, and
 * the run refuses to start if one of them is there already.
 */
import { expect } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { captureOutput } from "./output.ts";

const ROOT = join(import.meta.dir, "..");
/** The files the page's commands make. */
const MADE = ["data/keys", "data/shop.key", "data/reports.key", "data/shop-2.key", "data/animal-store.pid"];

/** The page's "API keys" section, up to its container parts (run by the deploy test, `deploy/test/keys.ts`). */
function section(): string {
  const page = readFileSync(join(ROOT, "docs", "operating.md"), "utf8");
  const start = page.indexOf("\n## API keys\n");
  return page.slice(start, page.indexOf("\n### In a container\n", start));
}

/** The fenced blocks of `language` in the section, in order. */
export function pageBlocks(language: string): string[] {
  return [...section().matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((match) => match[1]!);
}

/** The text the page quotes after `words` (the first backticked text), e.g. what the server says. */
function quotedAfter(words: string): string {
  const text = section().replaceAll("\n", " ");
  return /`([^`]+)`/.exec(text.slice(text.indexOf(words)))![1]!;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs a block with bash in the root; its output, or a throw with it. */
function runBlock(block: string, env: Record<string, string>): string {
  const result = Bun.spawnSync(["bash", "-e", "-o", "pipefail", "-c", block], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  const output = result.stdout.toString() + result.stderr.toString();
  if (result.exitCode !== 0) throw new Error(`the printed block exited ${result.exitCode}:\n${block}\n--- it said:\n${output}`);
  return result.stdout.toString();
}

/** What one run of the page did, for the test to check. */
export interface PageRun {
  /** What the dashboard's two requests printed. */
  readonly curls: string;
  /** The JSON block the page says the create prints. */
  readonly printedRefusal: string;
  /** What the server printed, from start to stop, and its exit code. */
  readonly serverOutput: string;
  readonly exitCode: number;
  /** The statuses of each key after each step: `shop`, `shop-2`, `reports`. */
  readonly statuses: Readonly<Record<string, readonly number[]>>;
  /** The lines the page says the server prints, found in what it printed. */
  readonly quotedLines: readonly string[];
  /** Whether the pid file was gone after the stop. */
  readonly pidFileGone: boolean;
}

/** Runs the section with `command` for `npm start --silent --` (and the server for `npm start`). */
export async function runKeysPage(command = "npm start --silent --"): Promise<PageRun> {
  const present = MADE.filter((path) => existsSync(join(ROOT, path)));
  if (present.length > 0) throw new Error(`${present.join(", ")} exist, not made by this run: remove them to run the page`);
  const blocks = pageBlocks("sh").map((block) => block.replaceAll("npm start --silent --", command).replace(/npm start$/m, command.replace(/ --silent --$/, "")));
  const [make, serve, curls, overlap, dropOld, revoke] = blocks;
  const port = await freePort();
  const env = { PORT: String(port), STORE: "memory" };
  const asked = (block: string) => runBlock(block.replaceAll("127.0.0.1:8080", `127.0.0.1:${port}`), env);
  const statuses: Record<string, number[]> = { shop: [], "shop-2": [], reports: [] };
  const askAll = async () => {
    for (const name of Object.keys(statuses)) {
      const keyFile = join(ROOT, "data", `${name}.key`);
      const key = existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : "none";
      statuses[name]!.push((await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status);
    }
  };
  let server: ReturnType<typeof Bun.spawn> | undefined;
  try {
    runBlock(make!, env);
    server = Bun.spawn(["bash", "-c", serve!], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
    const output = captureOutput(server as never);
    for (const started = Date.now(); !output().includes("listening on"); await Bun.sleep(20)) {
      if (server.exitCode !== null || Date.now() - started > 20_000) throw new Error(`the server did not start:\n${output()}`);
    }
    const reloads = async (count: number) => {
      for (const started = Date.now(); (output().match(/reloaded API_KEYS_FILE/g) ?? []).length < count; await Bun.sleep(20)) {
        if (Date.now() - started > 10_000) throw new Error(`no reload ${count}:\n${output()}`);
      }
    };
    const dashboard = asked(curls!);
    await askAll();
    asked(overlap!);
    await reloads(1);
    await askAll();
    asked(dropOld!);
    await reloads(2);
    await askAll();
    asked(revoke!);
    await reloads(3);
    await askAll();
    const pid = readFileSync(join(ROOT, "data", "animal-store.pid"), "utf8").trim();
    process.kill(Number(pid), "SIGTERM");
    const exitCode = await server.exited;
    const quoted = [quotedAfter("It says"), quotedAfter("The server says")];
    return {
      curls: dashboard,
      printedRefusal: pageBlocks("json")[0]!,
      serverOutput: output(),
      exitCode,
      statuses,
      quotedLines: quoted.filter((line) => output().includes(line)),
      pidFileGone: !existsSync(join(ROOT, "data", "animal-store.pid")),
    };
  } finally {
    if (server !== undefined && server.exitCode === null) server.kill("SIGKILL");
    for (const path of MADE) rmSync(join(ROOT, path), { force: true });
  }
}

/** The key file lines the page shows as an example (its first unnamed block). */
export function exampleKeyFile(): string {
  return pageBlocks("")[0]!;
}

/** What every run of the page must show, whatever runs the server. */
export function expectPageRun(run: PageRun): void {
  expect(run.curls).toBe(`[]${run.printedRefusal.trimEnd()}`);
  expect(run.statuses).toEqual({ shop: [200, 200, 401, 401], "shop-2": [401, 200, 200, 200], reports: [200, 200, 200, 401] });
  expect(run.quotedLines).toEqual(['API keys from API_KEYS_FILE "data/keys": 2 (SIGHUP reads it again)', 'reloaded API_KEYS_FILE "data/keys": 1 added, 0 removed, 2 kept (1 of them changed)']);
  expect(run.serverOutput).toMatch(/ GET \/v1\/pets 200 2 [\d.]+ms keyName=reports\n/);
  expect(run.serverOutput).toMatch(/ POST \/v1\/pets 403 162 [\d.]+ms keyName=reports\n/);
  expect(run.serverOutput).toContain('reloaded API_KEYS_FILE "data/keys": 0 added, 1 removed, 2 kept (0 of them changed)');
  expect(run.serverOutput).toContain('reloaded API_KEYS_FILE "data/keys": 0 added, 1 removed, 1 kept (0 of them changed)');
  expect({ exitCode: run.exitCode, pidFileGone: run.pidFileGone }).toEqual({ exitCode: 0, pidFileGone: true });
}
