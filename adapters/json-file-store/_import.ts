/**
 * @module
 * The JSON-file store's import, all or nothing: the file's acknowledged lines and the imported
 * pets are written to `<file>.import`, fsync'd, and only then renamed over the data file. Killed
 * half way, the data file is untouched, and the next open removes the half-written copy.
 */
import type { FileHandle } from "node:fs/promises";
import { chmod, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { ImportOptions, ImportSummary, MovedPet, Pet } from "../../src/mod.ts";
import { StoreUnavailableError } from "../../src/mod.ts";
import { importSummary, refuseUnlessAbove, refuseUnlessEmpty } from "../../src/_internal/stores.ts";
import type { ClientSecret } from "./_client-secret.ts";
import type { FileLock } from "./_file-lock.ts";
import type { JournalKey } from "./_journal.ts";
import type { FileIdentity } from "./_lost-data-file.ts";
import { copyDurably, syncFolder } from "../_files/durable-write.ts";
import { journalLine } from "./_journal.ts";
import { writeLastId } from "./_last-id.ts";
import { describeLoss, lossOf } from "./_lost-data-file.ts";

/** Bytes gathered before a write to the copy: 1 MiB took an import of 1,000,000 pets from 76 to 95 MiB peak RSS on Bun (bench/RESULTS.md, "Issue 53"). */
const WRITE_BYTES = 64 * 1024;

const encoder = new TextEncoder();

/** How an import into the file checks each pet and keeps its key, and what it sums up to. */
export interface ImportSteps {
  /** Refuses a pet whose id is not above the previous one's. */
  check(moved: MovedPet, position: number): void;
  /** The key as the file keeps it: the client's MAC under the file's secret. */
  keyOf(moved: MovedPet): JournalKey | undefined;
  /** The summary of what was written. */
  summary(imported: ImportedLines): ImportSummary;
}

/**
 * The steps of an import into a file holding `held` pets (refused unless empty or `append`), whose
 * keys are MACs under `secret`.
 */
export function importSteps(options: ImportOptions, held: { readonly count: number; readonly lastId: number }, secret: Pick<ClientSecret, "mac" | "text">): ImportSteps {
  refuseUnlessEmpty(held.count, options.append === true);
  let previous = options.append === true ? held.lastId : 0;
  let macKeys = 0;
  return {
    check(moved, position) {
      refuseUnlessAbove(moved.pet.id, previous, position);
      previous = moved.pet.id;
    },
    keyOf({ key }) {
      if (key?.clientMac !== undefined) macKeys++;
      return key === undefined ? undefined : { client: key.clientMac ?? secret.mac(key.client!), key: key.key, at: key.at };
    },
    summary({ count, lastId, withKey }) {
      // A MAC made under another secret never matches here (nor after a reopen): such keys stayed behind.
      const secrets = options.clientMacSecrets?.() ?? [];
      const sameSecret = secrets.length === 1 && secrets[0] === secret.text;
      return importSummary({ count, lastId, withKey }, withKey - (sameSecret ? 0 : macKeys));
    },
  };
}

/** What `writeImport` put in the copy, besides the file's own lines. */
export interface ImportedLines {
  /** How many pets were imported. */
  readonly count: number;
  /** The last imported pet's id, 0 when none was. */
  readonly lastId: number;
  /** How many imported pets came with an idempotency key. */
  readonly withKey: number;
  /** The copy's size in bytes. */
  readonly size: number;
}

/**
 * Writes the first `size` bytes of the data file and then `pets` (each checked, its key turned into
 * the file's, then handed to `each`) to `<path>.import`, fsync'd, as they arrive: nothing of them is
 * kept here. Removes the copy if anything fails.
 */
export async function writeImport(
  path: string,
  file: FileHandle,
  size: number,
  pets: AsyncIterable<MovedPet>,
  { check, keyOf }: ImportSteps,
  each: (pet: Pet, key: JournalKey | undefined) => void = () => {},
): Promise<ImportedLines> {
  const copy = importPath(path);
  await copyDurably(file, size, copy);
  const tally = { count: 0, lastId: 0, withKey: 0 };
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
        check(moved, tally.count);
        const key = keyOf(moved);
        each(moved.pet, key);
        tally.count++;
        tally.lastId = moved.pet.id;
        if (key !== undefined) tally.withKey++;
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
  return { ...tally, size: written };
}

/**
 * Renames the copy `writeImport` made over the data file, durably, once `<file>.last-id` covers
 * its last id and the path still leads to the file opened under the lock; removes the copy when
 * anything fails. Resolves with the mark now kept.
 */
export async function commitImport(path: string, guard: { readonly opened: FileIdentity; readonly lock: FileLock }, lastId: number, mark: number): Promise<number> {
  try {
    if (lastId > mark) await writeLastId(path, (mark = lastId));
    const loss = await lossOf(path, guard.opened, guard.lock).catch(() => undefined);
    if (loss !== undefined) throw new StoreUnavailableError(describeLoss(path, loss));
    await rename(importPath(path), path);
    await syncFolder(dirname(path));
    return mark;
  } catch (error) {
    await dropImport(path);
    throw error;
  }
}

/** Removes the copy `writeImport` made, when the import stops before its commit. */
export async function dropImport(path: string): Promise<void> {
  await rm(importPath(path), { force: true });
}

function importPath(path: string): string {
  return `${path}.import`;
}
