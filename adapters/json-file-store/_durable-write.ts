/**
 * @module
 * Writing whole files durably: fsync'd before the promise resolves, for the data file's helpers;
 * and the small secrets written once beside it (the client MAC's secret, the server's API key).
 */
import type { FileHandle } from "node:fs/promises";
import { link, open, readFile, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { errorCode } from "./_file-lock.ts";

const COPY_CHUNK_BYTES = 4 * 1024 * 1024;

/** Creates (or replaces) a file holding `bytes`, fsync'd before this resolves; `mode` applies to a new file. */
export async function writeDurably(path: string, bytes: Uint8Array, mode = 0o666): Promise<void> {
  const handle = await open(path, "w", mode);
  try {
    await handle.write(bytes, 0, bytes.length, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates (or replaces) a file holding the first `size` bytes of `source`, fsync'd before this resolves. */
export async function copyDurably(source: FileHandle, size: number, path: string): Promise<void> {
  const handle = await open(path, "w");
  try {
    const buffer = new Uint8Array(Math.min(size, COPY_CHUNK_BYTES));
    for (let position = 0; position < size;) {
      const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, size - position), position);
      if (bytesRead === 0) throw new Error(`the source ended at byte ${position} of ${size}`);
      const { bytesWritten } = await handle.write(buffer, 0, bytesRead, position);
      if (bytesWritten !== bytesRead) throw new Error(`the disk accepted ${bytesWritten} of ${bytesRead} bytes`);
      position += bytesRead;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Fsyncs a folder, so a file just created or renamed in it survives a crash. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The trimmed text of a secret written by `writeSecretOnce`; `undefined` when there is no such file. */
export async function readSecret(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
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
