/**
 * @module
 * The small secrets kept beside the data file (the client MAC's secret, the server's generated API
 * key): written once, mode 600, and read back only from what such a write leaves, a regular file of
 * a few bytes that only its owner may use.
 *
 * The read refuses a symbolic link (it would make another file's word the secret, or, dangling,
 * let the write-once loop forever), a FIFO (opening it waits for a writer), a device (`/dev/zero`
 * never ends) or a folder, a file larger than any secret, and one other users may read or change,
 * as ssh refuses such a private key. Deno's `node:fs` follows links even with `O_NOFOLLOW`, so
 * the file is looked at with `lstat` first and the opened file must be the one looked at.
 */
import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { link, lstat, open, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { syncFolder, writeDurably } from "./_durable-write.ts";
import { errorCode } from "./_file-lock.ts";

/** The most bytes a secret file may hold. */
export const MAX_SECRET_BYTES = 4096;

/** What is kept in a secret file: nothing yet, its trimmed text, or why the file cannot be used. */
export type SecretRead =
  | { readonly kind: "missing" }
  | { readonly kind: "found"; readonly text: string }
  | { readonly kind: "unusable"; readonly problem: string };

/** Reads a secret written by `writeSecretOnce`, refusing anything such a write does not leave. */
export async function readSecret(path: string): Promise<SecretRead> {
  let seen: Stats;
  try {
    seen = await lstat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "missing" };
    throw error;
  }
  const problem = fileProblem(seen);
  if (problem !== undefined) return { kind: "unusable", problem };
  // Non-blocking, so a FIFO swapped in after the look does not hold the start.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = await handle.stat();
    if (opened.dev !== seen.dev || opened.ino !== seen.ino) return { kind: "unusable", problem: "it was replaced while being read" };
    const swapped = fileProblem(opened);
    if (swapped !== undefined) return { kind: "unusable", problem: swapped };
    const bytes = new Uint8Array(MAX_SECRET_BYTES + 1);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    if (bytesRead > MAX_SECRET_BYTES) return { kind: "unusable", problem: `it holds more than ${MAX_SECRET_BYTES} bytes` };
    return { kind: "found", text: new TextDecoder().decode(bytes.subarray(0, bytesRead)).trim() };
  } finally {
    await handle.close();
  }
}

/** Why a file with these stats is not a secret this module wrote, or `undefined` when it may be one. */
function fileProblem(stats: Stats): string | undefined {
  if (!stats.isFile()) return `it is ${kindOf(stats)}, not a regular file`;
  if (stats.size > MAX_SECRET_BYTES) return `it holds more than ${MAX_SECRET_BYTES} bytes`;
  const mode = stats.mode & 0o777;
  if ((mode & 0o077) !== 0) return `its mode ${mode.toString(8)} lets other users at it (chmod 600 it if no one else could have read it)`;
  return undefined;
}

function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  return "a device";
}

/**
 * Writes a secret in one step, durably, mode 600: a temp file linked into place, so no reader sees
 * half of it and, of two writers, the first wins (the other's link fails with `EEXIST`).
 */
export async function writeSecretOnce(path: string, text: string): Promise<void> {
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  await writeDurably(temp, new TextEncoder().encode(`${text}\n`), 0o600);
  try {
    await link(temp, path);
  } finally {
    await unlink(temp);
  }
  await syncFolder(dirname(path));
}
