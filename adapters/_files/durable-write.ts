/**
 * @module
 * Writing whole files durably: fsync'd before the promise resolves, for the data file's helpers and
 * the secrets kept beside it (`secret-file.ts`).
 */
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";

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
