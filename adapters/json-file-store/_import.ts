/**
 * @module
 * The JSON-file store's import, all or nothing: the file's acknowledged lines and the imported
 * pets are written to `<file>.import`, fsync'd, and only then renamed over the data file. Killed
 * half way, the data file is untouched, and the next open removes the half-written copy.
 */
import type { FileHandle } from "node:fs/promises";
import { chmod, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { MovedPet } from "../../src/mod.ts";
import type { JournalKey } from "./_journal.ts";
import { copyDurably, syncFolder } from "../_files/durable-write.ts";
import { journalLine } from "./_journal.ts";

/** Bytes gathered before a write to the copy. */
const WRITE_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

/** What `writeImport` put in the copy, besides the file's own lines. */
export interface ImportedLines {
  /** Each imported pet with its key as the file keeps it, in order. */
  readonly records: { readonly pet: MovedPet["pet"]; readonly key: JournalKey | undefined }[];
  /** The copy's size in bytes. */
  readonly size: number;
}

/**
 * Writes the first `size` bytes of the data file and then `pets` (each checked by `check`, its key
 * turned by `keyOf`) to `<path>.import`, fsync'd; removes the copy if anything fails.
 */
export async function writeImport(
  path: string,
  file: FileHandle,
  size: number,
  pets: AsyncIterable<MovedPet>,
  check: (moved: MovedPet, position: number) => void,
  keyOf: (moved: MovedPet) => JournalKey | undefined,
): Promise<ImportedLines> {
  const copy = importPath(path);
  await copyDurably(file, size, copy);
  const records: ImportedLines["records"] = [];
  let written = size;
  try {
    const target = await open(copy, "a");
    try {
      let pending = "";
      const write = async () => {
        const bytes = encoder.encode(pending);
        pending = "";
        await target.write(bytes, 0, bytes.length, null);
        written += bytes.length;
      };
      for await (const moved of pets) {
        check(moved, records.length);
        const key = keyOf(moved);
        records.push({ pet: moved.pet, key });
        pending += `${journalLine(moved.pet, key)}\n`;
        if (pending.length >= WRITE_BYTES) await write();
      }
      await write();
      await target.sync();
    } finally {
      await target.close();
    }
    await chmod(copy, (await file.stat()).mode & 0o7777);
  } catch (error) {
    await rm(copy, { force: true });
    throw error;
  }
  return { records, size: written };
}

/** Renames the copy `writeImport` made over the data file, durably. */
export async function commitImport(path: string): Promise<void> {
  await rename(importPath(path), path);
  await syncFolder(dirname(path));
}

/** Removes the copy `writeImport` made, when the import stops before its commit. */
export async function dropImport(path: string): Promise<void> {
  await rm(importPath(path), { force: true });
}

function importPath(path: string): string {
  return `${path}.import`;
}
