/**
 * @module
 * A store that keeps pets in a JSON Lines file (see `pet-journal.ts`), durable and crash-safe.
 *
 * - A create resolves only once its line is written and fsync'd. Creates that arrive while a write
 *   is in flight wait and go out together in the next write (group commit): one fsync for many.
 * - Records are appended, never rewritten; pets are never updated or deleted, so the file holds no
 *   dead records and needs no compaction.
 * - After a failed write or fsync the store never retries (the kernel may have dropped the data
 *   and report success the second time): it cuts the file back to the last acknowledged size and
 *   refuses further creates until a restart reloads the file.
 * - A create with an idempotency key writes the key in the pet's own line; the keys of the last 24
 *   hours are loaded back on open, at most `maxIdempotencyKeys` of them.
 * - A lock file keeps a second process from writing the same file (see `file-lock.ts`).
 * - Before writing and again before acknowledging, the store checks that the path still leads to
 *   the file it opened and the lock is still its own (see `lost-data-file.ts`); if not, creates
 *   answer 503 and what was acknowledged is saved where a restart finds it.
 */
import type { FileHandle } from "node:fs/promises";
import { mkdir, open, rename, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { IdempotencyKey, KeyedCreate, NewPet, Pet, PetStore } from "../../src/mod.ts";
import type { KeyTable } from "../../src/_idempotency-keys.ts";
import type { PetIndex } from "../../src/_pet-index.ts";
import { IDEMPOTENCY_KEY_TTL_MS, StoreUnavailableError } from "../../src/mod.ts";
import { createKeyTable, tableKey } from "../../src/_idempotency-keys.ts";
import { addPet, createNumbering, createPetIndex, pageOf, petById } from "../../src/_pet-index.ts";
import type { FileLock } from "./_file-lock.ts";
import type { FileIdentity, Loss } from "./_lost-data-file.ts";
import type { JournalKey } from "./_journal.ts";
import { syncFolder, writeDurably } from "./_durable-write.ts";
import { acquireLock, errorCode } from "./_file-lock.ts";
import { lossOf, rescue } from "./_lost-data-file.ts";
import { JOURNAL_HEADER, journalLine, readJournal } from "./_journal.ts";

/** Options of the JSON-file store. */
export interface JsonFileStoreOptions {
  /** Where the opening and closing lines and warnings go. Default `console`. */
  readonly logger?: Pick<Console, "info" | "warn">;
  /** The most idempotency keys kept at once, shared fairly by API keys; past it, the oldest of the largest holder are forgotten early. Default 100,000. */
  readonly maxIdempotencyKeys?: number;
}

interface PendingCreate {
  readonly pet: Pet;
  readonly key: JournalKey | undefined;
  readonly resolve: (pet: Pet) => void;
  readonly reject: (error: Error) => void;
}

const encoder = new TextEncoder();

/** Opens (creating it and its folder if needed) the data file at `path` and loads every pet. */
export async function openJsonFileStore(path: string, options: JsonFileStoreOptions = {}): Promise<PetStore> {
  const logger = options.logger ?? console;
  const started = performance.now();
  await createFolder(path);
  const lock = await acquireLock(`${path}.lock`, `open ${path}`);
  let file: FileHandle | undefined;
  try {
    const index = createPetIndex();
    const keys = createKeyTable(options.maxIdempotencyKeys);
    const now = Date.now();
    file = await openJournal(path);
    const size = await loadJournal(file, path, (pet, key) => {
      addPet(index, pet);
      if (key !== undefined && now - key.at < IDEMPOTENCY_KEY_TTL_MS) keys.add(key, pet.id, key.at);
    }, logger);
    const opened = await file.stat();
    const elapsed = Math.round(performance.now() - started);
    logger.info(`opened ${path}: ${index.all.length} pets loaded in ${elapsed} ms`);
    return journalStore({ path, file, opened, lock, logger }, size, { index, keys });
  } catch (error) {
    await file?.close();
    await lock.release();
    throw error;
  }
}

async function createFolder(path: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (error) {
    throw new Error(`Cannot open ${path}: its folder ${dirname(path)} cannot be created (${describeError(error)})`);
  }
}

/** Opens the data file for reading and writing; a missing one is created with its header, atomically. */
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
  return open(path, "r+");
}

/** Reads the file into the index and repairs its end; resolves with the size new records go after. */
async function loadJournal(
  file: FileHandle,
  path: string,
  onPet: (pet: Pet, key: JournalKey | undefined) => void,
  logger: Pick<Console, "warn">,
): Promise<number> {
  const contents = await readJournal(file, path, onPet);
  let size = contents.size;
  if (size === 0) {
    size = await writeAt(file, `${JOURNAL_HEADER}\n`, 0);
  } else if (contents.newlineMissing) {
    size += await writeAt(file, "\n", size);
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
  return size;
}

/** The open data file and what guards it. */
interface Journal {
  readonly path: string;
  readonly file: FileHandle;
  /** The file as opened, to notice when its path no longer leads to it. */
  readonly opened: FileIdentity;
  readonly lock: FileLock;
  readonly logger: Pick<Console, "info" | "warn">;
}

/** What the store holds in memory: every pet, and the recent idempotency keys. */
interface Loaded {
  readonly index: PetIndex;
  readonly keys: KeyTable;
}

function journalStore({ path, file, opened, lock, logger }: Journal, committedSize: number, { index, keys }: Loaded): PetStore {
  const numbered = createNumbering(index.all[index.all.length - 1]?.id ?? 0);
  // Keyed creates not yet on disk, so a second create with the key waits for the first.
  const writing = new Map<string, Promise<Pet>>();
  let pending: PendingCreate[] = [];
  let flushing: Promise<void> | undefined;
  let failure: StoreUnavailableError | undefined;
  let closed = false;

  async function flush(): Promise<void> {
    while (pending.length > 0 && failure === undefined) {
      const batch = pending;
      pending = [];
      await writeBatch(batch);
    }
    flushing = undefined;
  }

  /** Refuses this batch, and every create from now on, with `error`. */
  function fail(batch: readonly PendingCreate[], error: StoreUnavailableError): void {
    failure = error;
    for (const entry of [...batch, ...pending]) entry.reject(error);
    pending = [];
  }

  /** Saves what was acknowledged and fails the store, once the file was lost (see `lost-data-file.ts`). */
  async function stopFor(loss: Loss, batch: readonly PendingCreate[]): Promise<void> {
    const reason = await rescue(file, committedSize, path, loss);
    logger.warn(`${path}: ${reason}`);
    fail(batch, new StoreUnavailableError(reason));
  }

  async function writeBatch(batch: readonly PendingCreate[]): Promise<void> {
    // Before writing only the lock needs checking: without it another server may own the file. A
    // deleted or replaced file takes the write harmlessly, and is caught before anything is acknowledged.
    if (!(await lock.isHeld().catch(() => true))) {
      // The lock goes with a removed folder: find out what happened to the file as well.
      return await stopFor((await lossOf(path, opened, lock).catch(() => undefined)) ?? "unlocked", batch);
    }
    const lines = batch.map((entry) => `${journalLine(entry.pet, entry.key)}\n`).join("");
    let written: number;
    let loss: Loss | undefined;
    try {
      written = await writeAt(file, lines, committedSize);
      // Checked while the data reaches the disk (a path that cannot be checked, EACCES say, counts
      // as in place): the batch is acknowledged only once both are done, and never if the file was lost.
      [, loss] = await Promise.all([file.datasync(), lossOf(path, opened, lock).catch(() => undefined)]);
    } catch (error) {
      await file.truncate(committedSize).catch(() => {}); // best effort: a torn tail is dropped on load anyway
      fail(batch, new StoreUnavailableError(
        `the data file could not be written (${describeError(error)}); no pet can be created until the server restarts`,
      ));
      return;
    }
    if (loss !== undefined) return await stopFor(loss, batch);
    committedSize += written;
    for (const entry of batch) {
      addPet(index, entry.pet);
      if (entry.key !== undefined) keys.add(entry.key, entry.pet.id, entry.key.at);
      entry.resolve(entry.pet);
    }
  }

  function enqueue(pet: NewPet, key: JournalKey | undefined): Promise<Pet> {
    if (failure !== undefined) return Promise.reject(failure);
    if (closed) return Promise.reject(new StoreUnavailableError("the store is closed"));
    const stored = numbered(pet);
    return new Promise((resolve, reject) => {
      pending.push({ pet: stored, key, resolve, reject });
      flushing ??= flush();
    });
  }

  async function createWithKey(pet: NewPet, key: IdempotencyKey): Promise<KeyedCreate> {
    const at = Date.now();
    const earlier = petById(index, keys.find(key, at) ?? 0);
    if (earlier !== undefined) return { pet: earlier, replayed: true };
    const name = tableKey(key);
    const inFlight = writing.get(name);
    if (inFlight !== undefined) return { pet: await inFlight, replayed: true };
    const created = enqueue(pet, { client: key.client, key: key.key, at });
    writing.set(name, created);
    try {
      return { pet: await created, replayed: false };
    } finally {
      writing.delete(name);
    }
  }

  return {
    create: (pet) => enqueue(pet, undefined),
    createWithKey,
    get: (id) => Promise.resolve(petById(index, id)),
    list: (query) => Promise.resolve(pageOf(index, query)),
    async health() {
      if (failure !== undefined) return { ok: false, reason: failure.message };
      return closed ? { ok: false, reason: "the store is closed" } : { ok: true };
    },
    async close() {
      if (closed) return;
      closed = true;
      await flushing;
      await file.close();
      await lock.release();
      logger.info(`closed ${path}: ${index.all.length} pets`);
    },
  };
}

/** Writes all of `text` at `position`, resolving with the byte count; short writes continue. */
async function writeAt(file: FileHandle, text: string, position: number): Promise<number> {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await file.write(bytes, offset, bytes.length - offset, position + offset);
    if (bytesWritten === 0) throw new Error("the disk accepted no more bytes");
    offset += bytesWritten;
  }
  return bytes.length;
}

function describeError(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}
