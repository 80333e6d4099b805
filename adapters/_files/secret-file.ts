/**
 * @module
 * Private, shared by the JSON-file store and the standalone server: the small files kept beside the data file: the secrets (the client MAC's secret, the server's
 * generated API key), written once, mode 600, and `pets.json.last-id`; each read back only from what
 * their writes leave, a regular file of a few bytes, and a secret only when its owner alone may use it.
 * The secrets an operator gives the server as files (`API_KEYS_FILE`, `DATABASE_URL_FILE`, …) are
 * opened with the same checks (`openChecked`), each with its own size bound.
 *
 * The read refuses a symbolic link (it would make another file's word the secret, or, dangling,
 * let the write-once loop forever), a FIFO (opening it waits for a writer), a device (`/dev/zero`
 * never ends) or a folder, a file larger than any of them, and a secret other users may read or
 * change, as ssh refuses such a private key. Deno's `node:fs` follows links even with `O_NOFOLLOW`, so
 * the file is looked at with `lstat` first and the opened file must be the one looked at.
 */
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
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
  const opened = await openChecked(path, { ownerOnly, maxBytes: MAX_SECRET_BYTES });
  if (opened.kind !== "open") return opened;
  try {
    const bytes = new Uint8Array(MAX_SECRET_BYTES + 1);
    const { bytesRead } = await opened.handle.read(bytes, 0, bytes.length, 0);
    if (bytesRead > MAX_SECRET_BYTES) return { kind: "unusable", problem: `it holds more than ${MAX_SECRET_BYTES} bytes` };
    return { kind: "found", text: new TextDecoder().decode(bytes.subarray(0, bytesRead)).trim() };
  } finally {
    await opened.handle.close();
  }
}

/** What a file may be: its owner's alone (`ownerOnly`), and at most `maxBytes` long. */
export interface FileLimits {
  readonly ownerOnly: boolean;
  readonly maxBytes: number;
}

/** A file opened after its checks, with what it was when opened; nothing there; or why it cannot be used. */
export type CheckedOpen =
  | { readonly kind: "missing" }
  | { readonly kind: "unusable"; readonly problem: string }
  | { readonly kind: "open"; readonly handle: FileHandle; readonly stats: Stats };

/**
 * Opens `path` for reading only when it is a regular file within `limits`, looked at with `lstat` and
 * opened without following a link, non-blocking (a FIFO swapped in after the look does not hold the
 * read), and the file opened must be the one looked at. The caller closes the handle.
 */
export async function openChecked(path: string, limits: FileLimits): Promise<CheckedOpen> {
  // A file renamed into place between the look and the open (as a writer is told to replace one) is
  // looked at again; only a path that keeps changing is refused.
  for (let looks = 1; looks <= LOOKS; looks++) {
    const checked = await openLooked(path, limits);
    if (checked !== SWAPPED) return checked;
  }
  return { kind: "unusable", problem: "it was replaced again and again while being read" };
}

/** How many times `openChecked` looks at a path whose file is replaced meanwhile. */
const LOOKS = 3;

/** What `openLooked` gives when the file opened is not the one looked at. */
const SWAPPED = Symbol("swapped");

/** `openChecked`'s one look and open. */
async function openLooked(path: string, limits: FileLimits): Promise<CheckedOpen | typeof SWAPPED> {
  let seen: Stats;
  try {
    seen = await lstat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "missing" };
    throw error;
  }
  const problem = fileProblem(seen, limits);
  if (problem !== undefined) return { kind: "unusable", problem };
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const opened = await handle.stat();
  const swapped = opened.dev !== seen.dev || opened.ino !== seen.ino ? SWAPPED : fileProblem(opened, limits);
  if (swapped === undefined) return { kind: "open", handle, stats: opened };
  await handle.close();
  return swapped === SWAPPED ? SWAPPED : { kind: "unusable", problem: swapped };
}

/** Why a file with these stats is not one this store wrote, or `undefined` when it may be one. */
function fileProblem(stats: Stats, limits: FileLimits): string | undefined {
  if (!stats.isFile()) return `it is ${kindOf(stats)}, not a regular file`;
  if (stats.size > limits.maxBytes) return `it holds more than ${limits.maxBytes} bytes`;
  if (!limits.ownerOnly) return undefined;
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
