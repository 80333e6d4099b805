/**
 * @module
 * Opening the data file as its one writer, shared by the store and the streaming import: the lock
 * taken (and a frozen owner fenced off), a half-written import's copy removed, the secret and the
 * last-id mark read, the file created if missing, every pet read and handed on, and a torn end
 * repaired.
 */
import type { FileHandle } from "node:fs/promises";
import { open, rename, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { Pet } from "../../src/mod.ts";
import type { ClientMac } from "../_client-mac.ts";
import type { ClientSecret } from "./_client-secret.ts";
import type { FileLock } from "./_file-lock.ts";
import type { FileIdentity } from "./_lost-data-file.ts";
import type { JournalContents, JournalKey } from "./_journal.ts";
import { openClientSecret } from "./_client-secret.ts";
import { syncFolder, writeDurably } from "../_files/durable-write.ts";
import { fenceOff } from "./_fence.ts";
import { errorCode } from "../_files/error-code.ts";
import { acquireLock } from "./_file-lock.ts";
import { dropImport } from "./_import.ts";
import { makeFolder } from "../_files/make-folder.ts";
import { JOURNAL_HEADER, readJournal } from "./_journal.ts";
import { readLastId } from "./_last-id.ts";

const encoder = new TextEncoder();

/** The data file opened and locked, read to its end. */
export interface LockedFile {
  readonly file: FileHandle;
  /** The file as opened, to notice when its path no longer leads to it. */
  readonly opened: FileIdentity;
  readonly lock: FileLock;
  /** What the file keeps of a key's client, and the secret it is made under (see `_client-secret.ts`). */
  readonly secret: ClientSecret;
  /** The highest id ever handed out, as `<file>.last-id` holds it (see `_last-id.ts`). */
  readonly mark: number;
  /** The size new records go after: every byte before it is acknowledged. */
  readonly size: number;
}

/**
 * Opens (creating it and its folder if needed) the data file at `path` as its one writer, handing
 * each of its pets to `onPet` in id order, its key's client as the file's MAC; `purpose` names the
 * opener in the lock. Releases everything when it fails.
 */
export async function openLocked(path: string, purpose: string, logger: Pick<Console, "warn">, onPet: (pet: Pet, key: JournalKey | undefined) => void): Promise<LockedFile> {
  createFolder(path);
  const lock = await acquireLock(`${path}.lock`, `${purpose} ${path}`);
  let file: FileHandle | undefined;
  try {
    if (lock.previousOwnerMayRun) await fenceOff(path);
    await dropImport(path); // the copy of an import that stopped half way: the file never had it
    const secret = await openClientSecret(path);
    const mark = await readLastId(path);
    file = await openJournal(path);
    const { size, macRecords } = await loadJournal(file, path, onPet, secret.mac, logger);
    await secret.keep();
    if (secret.created && macRecords > 0) {
      logger.warn(`${path}: its secret ${path}.secret was missing, so a new one was made; the ${macRecords} idempotency keys ` +
        "written under the old one are not recognised, and a retry with one of them creates a new pet");
    }
    return { file, opened: await file.stat(), lock, secret, mark, size };
  } catch (error) {
    await file?.close();
    await lock.release().catch(() => {}); // the error that stopped the open is the one to report
    throw error;
  }
}

function createFolder(path: string): void {
  try {
    makeFolder(dirname(path));
  } catch (error) {
    throw new Error(`Cannot open ${path}: its folder ${dirname(path)} cannot be created (${describeError(error)})`);
  }
}

/**
 * Opens the data file for reading and appending; a missing one is created with its header,
 * atomically. Appending (`O_APPEND`) means no write of this server lands over bytes another wrote.
 */
async function openJournal(path: string): Promise<FileHandle> {
  try {
    await stat(path);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    const temp = `${path}.new`;
    await writeDurably(temp, encoder.encode(`${JOURNAL_HEADER}\n`));
    await rename(temp, path);
    await syncFolder(dirname(path));
  }
  return open(path, "a+");
}

/**
 * Reads the file, handing each pet to `onPet`, and repairs its end; resolves with the size new
 * records go after, and how many records hold a MAC.
 */
async function loadJournal(
  file: FileHandle,
  path: string,
  onPet: (pet: Pet, key: JournalKey | undefined) => void,
  mac: ClientMac,
  logger: Pick<Console, "warn">,
): Promise<{ size: number; macRecords: number }> {
  const found: { contents?: JournalContents } = {};
  const macOf = cached(mac);
  for await (const pets of readJournal(file, path, "load", found)) {
    // `clientMac` since the MAC, `client` (the bare digest) before it.
    for (const { pet, key } of pets) onPet(pet, key === undefined ? undefined : { client: key.clientMac ?? macOf(key.client!), key: key.key, at: key.at });
  }
  const contents = found.contents!;
  let size = contents.size;
  if (size === 0) {
    size = await append(file, `${JOURNAL_HEADER}\n`);
  } else if (contents.newlineMissing) {
    size += await append(file, "\n");
  } else if (contents.tornTail !== undefined) {
    const saved = `${path}.torn-${Date.now()}`;
    await writeDurably(saved, contents.tornTail.bytes);
    await file.truncate(size);
    logger.warn(
      `${path}: dropped a torn record at line ${contents.tornTail.line} (${contents.tornTail.bytes.length} bytes, ` +
        `saved to ${saved}); the previous run stopped in the middle of writing it, before acknowledging it`,
    );
  }
  await file.sync();
  return { size, macRecords: contents.macRecords };
}

/** `mac`, remembering its answers: a file's older records name few clients, each many times. */
function cached(mac: ClientMac): ClientMac {
  const known = new Map<string, string>();
  return (client) => {
    let value = known.get(client);
    if (value === undefined) known.set(client, value = mac(client));
    return value;
  };
}

/** Appends all of `text` to the file, resolving with the byte count; short writes continue. */
export async function append(file: FileHandle, text: string): Promise<number> {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) {
    // No position: the file is open for appending, and the kernel puts each write at its end.
    const { bytesWritten } = await file.write(bytes, offset, bytes.length - offset, null);
    if (bytesWritten === 0) throw new Error("the disk accepted no more bytes");
    offset += bytesWritten;
  }
  return bytes.length;
}

/** An error as a line names it: its code, or its message. */
export function describeError(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}
