import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import type { ProcessIdentity } from "../adapters/json-file-store/_process-identity.ts";
import { identityOf, ownIdentity } from "../adapters/json-file-store/_process-identity.ts";
import { deadProcess, zombie } from "./processes.ts";
import { tempDataFile } from "./temp.ts";
import { NODE_TS } from "./node-ts.ts";

const quiet = { info: () => {}, warn: () => {} };
const HEADER = '{"format":"animal-store-pets","version":1}\n';
/**
 * Under the 5 s lease, with room for a busy machine: a takeover this fast was decided from /proc or
 * the OS lock, not by waiting the lease out.
 */
const AT_ONCE_MS = 3_000;

function writeLock(path: string, owner: object, ageSeconds = 0): void {
  writeFileSync(`${path}.lock`, `${JSON.stringify(owner)}\n`);
  const time = new Date(Date.now() - ageSeconds * 1000);
  utimesSync(`${path}.lock`, time, time);
}

/** Opens the store at `path`, resolving with how long the open took; the store is closed again. */
async function timedOpen(path: string): Promise<number> {
  const started = Date.now();
  const store = await openJsonFileStore(path, { logger: quiet });
  const elapsed = Date.now() - started;
  expect((JSON.parse(readFileSync(`${path}.lock`, "utf8")) as ProcessIdentity).pid).toBe(process.pid);
  await store.close();
  return elapsed;
}

describe("data-file lock: owners /proc can judge", () => {
  test("a lock naming a zombie is taken over at once", async () => {
    const path = tempDataFile();
    const { identity, stop } = await zombie();
    try {
      writeLock(path, identity);
      expect(await timedOpen(path)).toBeLessThan(AT_ONCE_MS);
    } finally {
      stop();
    }
  });

  test("a lock naming a pid now used by an unrelated process is taken over at once", async () => {
    const path = tempDataFile();
    const unrelated = Bun.spawn(["sleep", "10"]);
    try {
      writeLock(path, { ...(await identityOf(unrelated.pid)), startTime: "1" });
      expect(await timedOpen(path)).toBeLessThan(AT_ONCE_MS);
    } finally {
      unrelated.kill();
    }
  });

  test("a lock naming this process's own pid from an earlier life is taken over at once", async () => {
    const path = tempDataFile();
    // As a version before process instances wrote it: the pid and start time alone tell the lives apart.
    writeLock(path, { ...(await identityOf(process.pid)), startTime: "1" });
    expect(await timedOpen(path)).toBeLessThan(AT_ONCE_MS);
  });

  test("a lock naming a dead process is taken over at once, even just written, and the data file is kept as it is", async () => {
    const path = tempDataFile();
    writeFileSync(path, `${HEADER}{"id":1,"name":"Rex","categoryId":1}\n`);
    const { ino } = statSync(path);
    writeLock(path, await deadProcess());
    expect(await timedOpen(path)).toBeLessThan(AT_ONCE_MS);
    expect(statSync(path).ino).toBe(ino);
  });
});

describe("data-file lock: owners /proc cannot judge (another pid namespace or boot, no /proc)", () => {
  test("a lock naming this pid in another container's pid namespace, not renewed for 5 s, is taken over at once", async () => {
    const path = tempDataFile();
    writeLock(path, { ...(await ownIdentity()), instance: crypto.randomUUID(), pidNamespace: "pid:[1]" }, 60);
    expect(await timedOpen(path)).toBeLessThan(AT_ONCE_MS);
  });

  test("a lock whose owner renews its lease is refused, naming the owner", async () => {
    const path = tempDataFile();
    const lockPath = `${path}.lock`;
    const owner = Bun.spawn(["sh", "-c", `while :; do touch ${lockPath}; sleep 0.3; done`]);
    try {
      writeLock(path, { pid: owner.pid });
      await expect(openJsonFileStore(path, { logger: quiet })).rejects.toThrow(`it is in use by process ${owner.pid}`);
    } finally {
      owner.kill();
    }
  }, 10_000);

  test("a lock whose owner stopped renewing its lease is taken over once the lease runs out", async () => {
    const path = tempDataFile();
    writeLock(path, { pid: 999_999_999 });
    const elapsed = await timedOpen(path);
    expect(elapsed).toBeGreaterThan(4_000);
    // One lease, not two, with room for a busy machine.
    expect(elapsed).toBeLessThan(9_500);
  }, 20_000);

  test("a lock taken over by lease gives the data file a new inode with the same bytes and mode, so the owner's open file leads nowhere", async () => {
    const path = tempDataFile();
    const content = `${HEADER}{"id":1,"name":"Rex","categoryId":1}\n`;
    writeFileSync(path, content, { mode: 0o640 });
    const before = statSync(path);
    writeLock(path, { pid: 999_999_999 }, 60);
    await timedOpen(path);
    const after = statSync(path);
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode).toBe(before.mode);
    expect(readFileSync(path, "utf8")).toBe(content);
  });

  test("the owner renews its lease: the lock file's mtime moves every second", async () => {
    const path = tempDataFile();
    const store = await openJsonFileStore(path, { logger: quiet });
    const before = statSync(`${path}.lock`).mtimeMs;
    await Bun.sleep(1_500);
    expect(statSync(`${path}.lock`).mtimeMs).toBeGreaterThan(before);
    await store.close();
  });
});

describe("data-file lock: takeover", () => {
  test("a takeover guard left by a process that crashed while taking over is cleared", async () => {
    const path = tempDataFile();
    writeLock(path, await deadProcess());
    writeFileSync(`${path}.lock.takeover`, `${JSON.stringify(await deadProcess())}\n`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock.takeover`, old, old);
    expect(await timedOpen(path)).toBeLessThan(AT_ONCE_MS);
  });

  const RUNNERS = {
    bun: [process.execPath],
    deno: ["node_modules/.bin/deno", "run", "--no-prompt", "--allow-read=data", "--allow-write=data"],
    node: [...NODE_TS],
  };
  test.each(Object.keys(RUNNERS) as (keyof typeof RUNNERS)[])(
    "on %s, a takeover whose fresh copy of the data file does not fit on the disk removes the partial copy and names it",
    async (runtime) => {
      const path = tempDataFile();
      const content = HEADER + `{"id":1,"name":"${"x".repeat(200_000)}","categoryId":1}\n`;
      writeFileSync(path, content);
      writeLock(path, { pid: 999_999_999 }, 60);
      // A 64 KiB cap on the files the process writes stands in for a full disk (see server-process.ts).
      const capped = ["bash", "-c", 'trap "" XFSZ; ulimit -f 64; exec "$@"', "bash", ...RUNNERS[runtime], "test/fixtures/open-store.ts", path];
      const output = await new Response(Bun.spawn(capped, { stdout: "pipe", stderr: "inherit" }).stdout).text();
      expect(output).toStartWith(`lost: Cannot open ${path}: taking its lock over needs a fresh copy of it, ${path}.new, which could not be written (`);
      expect(output).toEndWith("); the partial copy was removed\n");
      expect(existsSync(`${path}.new`)).toBe(false);
      expect(readFileSync(path, "utf8")).toBe(content);
    },
    10_000,
  );

  test.each(Object.keys(RUNNERS) as (keyof typeof RUNNERS)[])(
    "on %s, a lock naming the server's own pid from an earlier life (a container's pid 1) is taken over at once",
    async (runtime) => {
      const path = tempDataFile();
      const child = Bun.spawn([...RUNNERS[runtime], "test/fixtures/open-store.ts", path, "earlier-life"], { stdout: "pipe", stderr: "pipe" });
      const output = await new Response(child.stdout).text();
      // The open alone, as the child timed it (a runtime's start on a busy machine is no part of it).
      expect(Number(/^won in (\d+) ms$/m.exec(output)?.[1])).toBeLessThan(AT_ONCE_MS);
    },
    30_000,
  );
});
