/**
 * @module
 * The data file's high-water mark: `<file>.last-id` holds an id at or above every id the store has
 * handed out, so numbering continues above it even once the newest pets are gone from the file (an
 * operator's edit while the server is stopped, a restore of an older copy of the file alone).
 *
 * The store moves the mark forward in steps of `RESERVE_STEP` before it writes a pet past it, and
 * sets it to the last id handed out on a clean close: one small durable write per step, not per
 * create. After a crash up to `RESERVE_STEP - 1` ids are skipped, never reused. A missing mark
 * (a file copied without it) counts as 0: numbering continues above the file's last id.
 */
import { rename } from "node:fs/promises";
import { dirname } from "node:path";
import { syncFolder, writeDurably } from "../_files/durable-write.ts";
import { readSmallFile } from "../_files/secret-file.ts";

/** How far ahead of the ids written the mark is moved, in ids. */
export const RESERVE_STEP = 1000;

/** The path of the mark beside the data file at `path`. */
export function lastIdPath(path: string): string {
  return `${path}.last-id`;
}

/**
 * The mark beside the data file at `path`: 0 when there is none; rejects, naming it, when it holds
 * no id or is no file the store wrote (a FIFO, a link to `/dev/zero`, a folder: read as a secret is).
 */
export async function readLastId(path: string): Promise<number> {
  const read = await readSmallFile(lastIdPath(path), false);
  if (read.kind === "missing") return 0;
  if (read.kind === "unusable") {
    throw new Error(`Cannot open ${path}: ${lastIdPath(path)}: ${read.problem}; it should hold the highest id handed out: ` +
      "put back the one a backup kept, or delete it to number above the data file's last id");
  }
  const id = Number(read.text);
  if (!/^\d+$/.test(read.text) || !Number.isSafeInteger(id)) {
    throw new Error(`Cannot open ${path}: ${lastIdPath(path)} should hold the highest id handed out, a whole number, but holds ${JSON.stringify(read.text.slice(0, 40))}`);
  }
  return id;
}

/** Replaces the mark beside the data file at `path` with `id`, durably and in one step (temp file renamed into place). */
export async function writeLastId(path: string, id: number): Promise<void> {
  const temp = `${lastIdPath(path)}.new`;
  await writeDurably(temp, new TextEncoder().encode(`${id}\n`));
  await rename(temp, lastIdPath(path));
  await syncFolder(dirname(path));
}
