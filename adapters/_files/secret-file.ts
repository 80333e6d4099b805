/**
 * @module
 * Private, shared by the JSON-file store and the standalone server: the small files kept beside the data file: the secrets (the client MAC's secret, the server's
 * generated API key), written once, mode 600, and `pets.json.last-id`; each read back only from what
 * their writes leave, a regular file of a few bytes, and a secret only when its owner alone may use it.
 *
 * The read refuses a symbolic link (it would make another file's word the secret, or, dangling,
 * let the write-once loop forever), a FIFO (opening it waits for a writer), a device (`/dev/zero`
 * never ends) or a folder, a file larger than any of them, and a secret other users may read or
 * change, as ssh refuses such a private key. Deno's `node:fs` follows links even with `O_NOFOLLOW`, so
 * the file is looked at with `lstat` first and the opened file must be the one looked at.
 */
import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { link, lstat, open, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { syncFolder, writeDurably } from "./durable-write.ts";
import { errorCode } from "./error-code.ts";

/** The most bytes a small file beside the data file may hold. */
export const MAX_SECRET_BYTES = 4096;

/** What is kept in a small file: nothing yet, its trimmed text, or why the file cannot be used. */
export type SecretRead =
  | { readonly kind: "missing" }
  | { readonly kind: "found"; readonly text: string }
  | { readonly kind: "unusable"; readonly problem: string };

/** Reads a secret written by `writeSecretOnce`, refusing anything such a write does not leave. */
export function readSecret(path: string): Promise<SecretRead> {
  return readSmallFile(path, true);
}

/**
 * Reads a small file written whole beside the data file (a secret, or `pets.json.last-id`), refusing
 * what no such write leaves; with `ownerOnly`, also a file other users may read or change.
 */
export async function readSmallFile(path: string, ownerOnly: boolean): Promise<SecretRead> {
  let seen: Stats;
  try {
    seen = await lstat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "missing" };
    throw error;
  }
  const problem = fileProblem(seen, ownerOnly);
  if (problem !== undefined) return { kind: "unusable", problem };
  // Non-blocking, so a FIFO swapped in after the look does not hold the start.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = await handle.stat();
    if (opened.dev !== seen.dev || opened.ino !== seen.ino) return { kind: "unusable", problem: "it was replaced while being read" };
    const swapped = fileProblem(opened, ownerOnly);
    if (swapped !== undefined) return { kind: "unusable", problem: swapped };
    const bytes = new Uint8Array(MAX_SECRET_BYTES + 1);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    if (bytesRead > MAX_SECRET_BYTES) return { kind: "unusable", problem: `it holds more than ${MAX_SECRET_BYTES} bytes` };
    return { kind: "found", text: new TextDecoder().decode(bytes.subarray(0, bytesRead)).trim() };
  } finally {
    await handle.close();
  }
}

/** Why a file with these stats is not one this store wrote, or `undefined` when it may be one. */
function fileProblem(stats: Stats, ownerOnly: boolean): string | undefined {
  if (!stats.isFile()) return `it is ${kindOf(stats)}, not a regular file`;
  if (stats.size > MAX_SECRET_BYTES) return `it holds more than ${MAX_SECRET_BYTES} bytes`;
  if (!ownerOnly) return undefined;
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
