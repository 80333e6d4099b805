/**
 * @module
 * An exclusive lock file holding its owner's pid, so only one process writes a data file.
 *
 * The lock is created with its content in one step (write a private temp file, then `link` it to
 * the lock path, which fails if the lock exists), so no reader ever sees an empty lock. A lock left
 * by a dead process is taken over under a second, guard lock: without it, two processes that both
 * saw the dead pid could each delete the lock and both win.
 */
import { link, readFile, rename, unlink, writeFile } from "node:fs/promises";
import process from "node:process";

/** A held lock. */
export interface FileLock {
  /** Removes the lock file if it is still ours. */
  release(): Promise<void>;
}

/** Takes the lock at `lockPath` for this process, or rejects saying who holds it. */
export async function acquireLock(lockPath: string, purpose: string): Promise<FileLock> {
  if (!(await createWithPid(lockPath))) await takeOverStale(lockPath, purpose);
  return {
    async release() {
      if ((await readPid(lockPath)) === process.pid) await unlink(lockPath);
    },
  };
}

/** Creates `path` holding this pid; false when it already exists. */
async function createWithPid(path: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${process.pid}\n`);
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(temp);
  }
}

async function takeOverStale(lockPath: string, purpose: string): Promise<void> {
  const holder = await readPid(lockPath);
  if (holder === process.pid) throw new Error(`Cannot ${purpose}: it is already open in this process`);
  if (holder !== undefined && isAlive(holder)) {
    throw new Error(
      `Cannot ${purpose}: it is in use by process ${holder} (lock file ${lockPath}); if no such process runs, delete the lock file`,
    );
  }
  const guard = `${lockPath}.takeover`;
  if (!(await createWithPid(guard))) {
    throw new Error(
      `Cannot ${purpose}: another process is taking over the stale lock ${lockPath}; if none is running, delete ${guard}`,
    );
  }
  try {
    if ((await readPid(lockPath)) !== holder) throw new Error(`Cannot ${purpose}: the lock ${lockPath} changed hands; try again`);
    const temp = `${lockPath}.${process.pid}.tmp`;
    await writeFile(temp, `${process.pid}\n`);
    await rename(temp, lockPath);
  } finally {
    await unlink(guard);
  }
}

/** The pid in a lock file, or `undefined` when it holds none or is gone. */
async function readPid(path: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(path, "utf8")).trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Whether process `pid` runs. When that cannot be told (Deno needs --allow-run to signal a
 * process), it is assumed to run, which is the safe answer.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== "ESRCH";
  }
}

/** The `code` of a file-system error (`ENOENT`, `EEXIST`, ...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
