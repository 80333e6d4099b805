/**
 * @module
 * An exclusive lock file naming its owner, so only one process writes a data file, and a crashed
 * owner never keeps the next server from starting.
 *
 * The lock file holds the owner's identity as one JSON line (see `_process-identity.ts`). Whether
 * that owner still runs is told, from the most certain to the least:
 * 1. `/proc`, when the owner ran in the same boot and pid namespace: a zombie, a pid now used by
 *    another process, or this process's own pid from an earlier life (a container's pid 1) is dead.
 * 2. The OS lock (`flock`) a Deno owner holds on the lock file, which the kernel drops at its exit.
 * 3. A lease: every owner touches the lock file's mtime each second; one not touched for 5 s is dead.
 *    A starting server watches the file for up to that long before taking it over.
 *
 * The lock is created with its content in one step (a private temp file `link`ed to the lock path,
 * which fails if the lock exists), so no reader sees an empty lock. A dead owner's lock is taken
 * over under a second, guard lock: without it, two processes that both saw the dead owner could
 * both win. The owner checks with `isHeld` that the lock file still holds its own words (its
 * process `instance` is random) before each write and before each acknowledgement.
 *
 * Only the lease can be wrong: an owner that is frozen (SIGSTOP, a long GC pause, a paused
 * container or VM) renews nothing and looks dead, yet wakes up later with the data file open. A
 * lock taken over that way says so (`previousOwnerMayRun`), and the store then fences the old
 * owner off (see `_fence.ts`).
 */
import { link, readFile, rename, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { setInterval } from "node:timers";
import type { OsLock } from "./_os-file-lock.ts";
import type { ProcessIdentity } from "./_process-identity.ts";
import { errorCode } from "../_files/error-code.ts";
import { hasOsLocks, tryOsLock } from "./_os-file-lock.ts";
import { isSameProcess, livenessOf, ownIdentity } from "./_process-identity.ts";

/** How often an owner renews its lease. */
const RENEW_MS = 1_000;
/** How long a lease lasts without renewal; a guard lock older than this was left by a crash. */
const STALE_MS = 5_000;
const POLL_MS = 100;

/** A held lock. */
export interface FileLock {
  /**
   * Whether the lock was taken over from an owner that could not be shown dead, only silent for a
   * lease: a frozen owner looks the same, and may wake up and write.
   */
  readonly previousOwnerMayRun: boolean;
  /** Whether the lock file at the path still holds this lock's words: not removed, not taken over. */
  isHeld(): Promise<boolean>;
  /** Stops renewing, and removes the lock file if it is still ours; rejects when removing it fails. */
  release(): Promise<void>;
}

/** What a lock file says about its owner. */
interface Owner extends ProcessIdentity {
  /** Whether the owner holds an OS lock on the lock file as long as it runs. */
  readonly osLock?: boolean;
}

/** A lock file this process wrote: its words, and the OS lock it holds on it (on Deno). */
interface Written {
  readonly text: string;
  readonly osLock: OsLock | undefined;
}

/** What is known of the owner a lock names. */
type OwnerState = "alive" | "dead" | "lease expired";

/** Takes the lock at `lockPath` for this process, or rejects saying who holds it. */
export async function acquireLock(lockPath: string, purpose: string): Promise<FileLock> {
  const self: Owner = { ...(await ownIdentity()), ...(hasOsLocks() ? { osLock: true } : {}) };
  const refuse = (reason: string) => new Error(`Cannot ${purpose}: ${reason}`);
  for (let attempt = 0; attempt < 3; attempt++) {
    const created = await writeLock(lockPath, self, "create");
    if (created !== undefined) return heldLock(lockPath, created, false);
    const holder = await readLockText(lockPath);
    if (holder === undefined) continue; // released meanwhile
    const owner = parseOwner(holder);
    const state = await ownerState(lockPath, owner, self);
    if (state === "alive") {
      throw refuse(isSameProcess(owner, self) ? "it is already open in this process" : `it is in use by process ${owner.pid} (lock file ${lockPath})`);
    }
    return heldLock(lockPath, await takeOver(lockPath, holder, self, refuse), state === "lease expired");
  }
  throw refuse(`the lock ${lockPath} keeps changing hands; try again`);
}

/**
 * Writes a lock file naming `owner` at `path`: "create" only if none exists (else resolves
 * `undefined`), "replace" over whatever is there.
 */
async function writeLock(path: string, owner: Owner, mode: "create" | "replace"): Promise<Written | undefined> {
  // The random part keeps two pid-1 servers in different containers from sharing a temp file.
  const temp = `${path}.${owner.pid}-${crypto.randomUUID()}.tmp`;
  const text = `${JSON.stringify(owner)}\n`;
  await writeFile(temp, text);
  let osLock: OsLock | undefined;
  let renamed = false;
  try {
    const taken = await tryOsLock(temp); // a new file: never busy
    osLock = typeof taken === "object" ? taken : undefined;
    if (mode === "create") {
      await link(temp, path);
    } else {
      await rename(temp, path);
      renamed = true;
    }
    return { text, osLock };
  } catch (error) {
    osLock?.release();
    if (errorCode(error) === "EEXIST") return undefined;
    throw error;
  } finally {
    if (!renamed) await unlink(temp);
  }
}

/** Whether the owner a lock names still runs (see the module comment for how it is told). */
async function ownerState(lockPath: string, owner: Owner, self: Owner): Promise<OwnerState> {
  const liveness = await livenessOf(owner, self);
  if (liveness !== "unknown") return liveness;
  if (owner.osLock === true) {
    const probe = await tryOsLock(lockPath);
    if (probe === "busy") return "alive";
    if (probe !== undefined) {
      probe.release();
      return "dead";
    }
  }
  return (await leaseExpired(lockPath)) ? "lease expired" : "alive";
}

/** Watches the lock's mtime: false as soon as the owner renews it, true once it has gone `STALE_MS` without. */
async function leaseExpired(lockPath: string): Promise<boolean> {
  const first = await stat(lockPath);
  const deadline = Math.min(first.mtimeMs, Date.now()) + STALE_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const now = await stat(lockPath).catch(() => undefined);
    if (now?.mtimeMs !== first.mtimeMs || now.ino !== first.ino) return false;
  }
  return true;
}

/** Replaces the lock of a dead owner, whose lock file read `holder`, under the guard lock. */
async function takeOver(lockPath: string, holder: string, self: Owner, refuse: (reason: string) => Error): Promise<Written> {
  const guardPath = `${lockPath}.takeover`;
  const guard = (await writeLock(guardPath, self, "create")) ??
    ((await removeIfLeftByCrash(guardPath)) ? await writeLock(guardPath, self, "create") : undefined);
  if (guard === undefined) throw refuse(`another process is taking over the stale lock ${lockPath}; try again`);
  try {
    if ((await readLockText(lockPath)) !== holder) throw refuse(`the lock ${lockPath} changed hands; try again`);
    return (await writeLock(lockPath, self, "replace"))!;
  } finally {
    await unlink(guardPath);
    guard.osLock?.release();
  }
}

/** Removes a guard lock older than any takeover lasts (its taker crashed midway); true if it did. */
async function removeIfLeftByCrash(guardPath: string): Promise<boolean> {
  const age = Date.now() - (await stat(guardPath)).mtimeMs;
  if (age < STALE_MS) return false;
  await unlink(guardPath).catch(() => {}); // gone already: another process removed it
  return true;
}

/** The lock as held: renews the lease every second, checks it is still ours, removes it on release. */
function heldLock(lockPath: string, written: Written, previousOwnerMayRun: boolean): FileLock {
  // The words, not the inode: a removed lock's inode number may be given to the next lock file.
  const isHeld = async () => (await readLockText(lockPath)) === written.text;
  const renew = async () => {
    const now = new Date();
    if (await isHeld()) await utimes(lockPath, now, now);
  };
  // A failed renewal is retried a second later; `isHeld` reports a lock that is really lost.
  const renewal = setInterval(() => renew().catch(() => {}), RENEW_MS);
  renewal.unref();
  return {
    previousOwnerMayRun,
    isHeld,
    async release() {
      clearInterval(renewal);
      try {
        if (await isHeld()) await unlink(lockPath);
      } finally {
        written.osLock?.release();
      }
    },
  };
}

/** The text of a lock file, or `undefined` when it is gone. */
async function readLockText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** The owner a lock file names; a file of earlier versions holds only a pid. */
function parseOwner(text: string): Owner {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === "number") return { pid: parsed };
  if (typeof parsed === "object" && parsed !== null && typeof (parsed as Owner).pid === "number") return parsed as Owner;
  return { pid: 0 };
}
