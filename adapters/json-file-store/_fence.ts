/**
 * @module
 * Fencing off a data file's earlier owner that may only be frozen.
 *
 * A lock taken over because its lease ran out may belong to a server that is frozen, not dead
 * (SIGSTOP, a long GC pause, a paused container or VM). When it wakes, it still holds the data file
 * open, and a write it had already decided on goes out before any check can stop it. So the new
 * owner gives the path a new file: a durable copy renamed over it. The woken server's writes then
 * land in the old file, which no path leads to any more, and never among the new owner's lines.
 *
 * Nothing it acknowledged is lost: it acknowledges a write only after checking, once the write is
 * done, that the lock is still its own; the new owner takes the lock before it copies, so every
 * write acknowledged before the takeover is in the copy.
 */
import type { FileHandle } from "node:fs/promises";
import { chmod, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { copyDurably, syncFolder } from "../_files/durable-write.ts";
import { errorCode } from "../_files/error-code.ts";

/** Replaces the file at `path` (if there is one) by a durable copy of itself, so old descriptors lead nowhere. */
export async function fenceOff(path: string): Promise<void> {
  let source: FileHandle;
  try {
    source = await open(path, "r");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  const copy = `${path}.new`;
  try {
    const { size, mode } = await source.stat();
    await copyDurably(source, size, copy);
    await chmod(copy, mode & 0o7777);
  } catch (error) {
    // A partial copy left behind would keep the disk full that stopped it.
    await rm(copy, { force: true }).catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot open ${path}: taking its lock over needs a fresh copy of it, ${copy}, which could not be written (${reason}); the partial copy was removed`);
  } finally {
    await source.close();
  }
  await rename(copy, path);
  await syncFolder(dirname(path));
}
