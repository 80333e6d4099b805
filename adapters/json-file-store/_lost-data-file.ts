/**
 * @module
 * Noticing that the data file was taken from under a running server, and saving what it holds.
 *
 * Deleting the file, removing its folder, or renaming another file over it (an editor's save, a
 * sync tool, a restore from backup) leaves the server writing into a file no path leads to: every
 * pet it acknowledges then is gone at the next start. So before acknowledging, the store checks
 * that the path still leads to the file it opened (same device and inode) and that the lock is
 * still its own (the lock also before writing).
 */
import type { FileHandle } from "node:fs/promises";
import { link, mkdir, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import type { FileLock } from "./_file-lock.ts";
import { copyDurably, syncFolder } from "../_files/durable-write.ts";
import { errorCode } from "../_files/error-code.ts";

/** Which file the store opened: the device and inode its path led to then. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

/** How the data file was lost. */
export type Loss = "deleted" | "replaced" | "unlocked";

/**
 * How the data file was lost, or `undefined` while the path leads to the open file and the lock is
 * ours. A lost lock comes before a replaced file: a server that took the lock over may have given
 * the path a new file (see `_fence.ts`), which is then its file, not one to save anything beside.
 */
export async function lossOf(path: string, opened: FileIdentity, lock: FileLock): Promise<Loss | undefined> {
  const [current, held] = await Promise.all([identityAt(path), lock.isHeld()]);
  if (current === undefined) return "deleted";
  if (!held) return "unlocked";
  return current.dev !== opened.dev || current.ino !== opened.ino ? "replaced" : undefined;
}

/** What happened to the data file, in words, for a health check (nothing is saved yet). */
export function describeLoss(path: string, loss: Loss): string {
  if (loss === "unlocked") return lockLost(path);
  const what = loss === "deleted" ? `the data file ${path} was deleted (or its folder removed)` : `the data file ${path} was replaced by another file`;
  return `${what} while the server ran; the next create saves every pet acknowledged and says where`;
}

function lockLost(path: string): string {
  return `the lock file ${path}.lock was removed or taken over while this server ran, so another process may write ${path}; ` +
    "no pet is created until the server restarts";
}

/** The device and inode `path` leads to, or `undefined` when nothing is there. */
async function identityAt(path: string): Promise<FileIdentity | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * Saves the first `size` bytes of the open file (everything acknowledged) where a restart finds
 * them, and resolves with the sentence for the 503 answers: what happened and what to do.
 */
export async function rescue(file: FileHandle, size: number, path: string, loss: Loss): Promise<string> {
  // Another server may be writing the file now (or has given the path a file of its own): nothing is written.
  if (loss === "unlocked") return lockLost(path);
  const what = loss === "deleted" ? `the data file ${path} was deleted (or its folder removed)` : `the data file ${path} was replaced by another file`;
  const saved = `${path}.rescued-${Date.now()}`;
  try {
    await mkdir(dirname(path), { recursive: true });
    await copyDurably(file, size, saved);
    if (loss === "deleted" && (await linkIfAbsent(saved, path))) {
      await unlink(saved);
      await syncFolder(dirname(path));
      return `${what} while the server ran; every pet acknowledged was written back to it: restart the server to create pets again`;
    }
    await syncFolder(dirname(path));
  } catch (error) {
    return `${what} while the server ran, and saving the acknowledged pets failed (${errorCode(error) ?? String(error)}); ` +
      "they can still be read from this server: copy them out before stopping it";
  }
  return `${what} while the server ran; every pet acknowledged is saved in ${saved}: stop the server, ` +
    `put the file to keep at ${path} (the saved one holds every pet clients were told about) and restart it`;
}

/** Gives `existing` the second name `path` unless something is there already; true if it did. */
async function linkIfAbsent(existing: string, path: string): Promise<boolean> {
  try {
    await link(existing, path);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
}
