/**
 * @module
 * A store that keeps pets in a JSON Lines file (see `_journal.ts`), durable and crash-safe.
 *
 * - A create resolves only once its line is written and fsync'd. Creates that arrive while a write
 *   is in flight wait and go out together in the next write (group commit): one fsync for many.
 * - Records are appended, never rewritten; pets are never updated or deleted, so the file holds no
 *   dead records and needs no compaction.
 * - Ids continue above the highest ever handed out, kept in `<file>.last-id` (see `_last-id.ts`),
 *   not above the file's last line: an id is never reused, even once the newest pets are gone.
 * - After a failed write or fsync the store never retries (the kernel may have dropped the data
 *   and report success the second time): it cuts the file back to the last acknowledged size and
 *   refuses further creates until a restart reloads the file.
 * - A create with an idempotency key writes the key in the pet's own line; the keys of the last 24
 *   hours are loaded back on open, at most `maxIdempotencyKeys` of them. The API key behind it is
 *   kept only as an HMAC under a secret beside the file (see `_client-secret.ts`).
 * - A lock file keeps a second process from writing the same file (see `_file-lock.ts`).
 * - Before writing and again before acknowledging, the store checks that the path still leads to
 *   the file it opened and the lock is still its own (see `_lost-data-file.ts`); if not, creates
 *   answer 503 and what was acknowledged is saved where a restart finds it.
 * - Writes only ever append (`O_APPEND`), and a lock taken from an owner that may only be frozen
 *   gives the path a new file first (see `_fence.ts`): a woken owner's write lands nowhere it can
 *   overwrite the new owner's lines.
 * - `openJsonFileSnapshot` reads the file for an export while a server writes it (see `_snapshot.ts`),
 *   and `openJsonFileImport` imports into it without loading its pets (see `_streaming-import.ts`):
 *   nothing outside this folder reads or writes the file.
 */
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import type { IdempotencyKey, ImportOptions, ImportSummary, KeyedCreate, MovedPet, NewPet, PageQuery, Pet, PetStore, StoreHealth } from "../../src/mod.ts";
import { IDEMPOTENCY_KEY_TTL_MS, MAX_EXACT_INTEGER, StoreUnavailableError } from "../../src/mod.ts";
import type { PetTable } from "../../src/_internal/stores.ts";
import { _methodNow, createPetTable, idsUsedUp } from "../../src/_internal/stores.ts";
import { commitImport, importSteps, writeImport } from "./_import.ts";
import type { ClientSecret } from "./_client-secret.ts";
import type { FileLock } from "./_file-lock.ts";
import type { FileIdentity, Loss } from "./_lost-data-file.ts";
import type { JournalKey } from "./_journal.ts";
import { describeLoss, lossOf, rescue } from "./_lost-data-file.ts";
import { journalLine } from "./_journal.ts";
import { RESERVE_STEP, writeLastId } from "./_last-id.ts";
import { append, describeError, openLocked } from "./_open-file.ts";

/** Options of the JSON-file store. */
export interface JsonFileStoreOptions {
  /** Where the opening and closing lines and warnings go. Default `console`. */
  readonly logger?: Pick<Console, "info" | "warn">;
  /** The most idempotency keys kept at once, shared fairly by API keys; past it, the oldest of the largest holder are forgotten early. Default 100,000. */
  readonly maxIdempotencyKeys?: number;
  /** Told of each group commit and of the keys held, for metrics. Default: nobody. */
  readonly observer?: JsonFileStoreObserver;
}

/** What the store reports as it works; each call is synchronous and should be cheap. */
export interface JsonFileStoreObserver {
  /** A group commit reached the disk: how many creates it carried, and how long its fsync took in seconds. */
  committed(creates: number, fsyncSeconds: number): void;
  /** How many idempotency keys the store holds: once opened, then after every commit. */
  keysHeld(count: number): void;
}

interface PendingCreate {
  /** Numbered when its batch is written, so an import in between takes the ids below it. */
  readonly pet: NewPet;
  readonly key: JournalKey | undefined;
  readonly resolve: (pet: Pet) => void;
  readonly reject: (error: Error) => void;
}

export type { JsonFileSnapshot } from "./_snapshot.ts";

/** The data file's format version this code reads and writes. */
export { FORMAT_VERSION as DATA_FILE_VERSION } from "./_journal.ts";

/**
 * The format version a data file names in its header, read from its first line alone: `undefined`
 * when there is no file at the path (what an upgrade checks before it starts a server on the file).
 */
export { formatVersionOf as dataFileVersion } from "./_journal.ts";

/**
 * Opens the data file at a path to export it while a server may be writing it (`animal-store
 * export` does): without its lock and without writing anything, its pets up to its last whole line.
 */
export { openSnapshot as openJsonFileSnapshot } from "./_snapshot.ts";

export type { JsonFileImport } from "./_streaming-import.ts";

/**
 * Opens the data file at `path` to import into while no server has it open (`animal-store import`
 * does): the imported pets go to the file as they are read, without loading them, all or nothing.
 */
export { openJsonFileImport } from "./_streaming-import.ts";

/** Opens (creating it and its folder if needed) the data file at `path` and loads every pet. */
export async function openJsonFileStore(path: string, options: JsonFileStoreOptions = {}): Promise<PetStore> {
  const logger = options.logger ?? console;
  const started = performance.now();
  const table = createPetTable(options.maxIdempotencyKeys);
  const now = Date.now();
  const { file, opened, lock, secret, mark, size } = await openLocked(path, "open", logger, (pet, key) => {
    table.add(pet, key !== undefined && now - key.at < IDEMPOTENCY_KEY_TTL_MS ? key : undefined);
  });
  const elapsed = Math.round(performance.now() - started);
  logger.info(`opened ${path}: ${table.size} pets loaded in ${elapsed} ms`);
  options.observer?.keysHeld(table.keysHeld);
  return journalStore({ path, file, opened, lock, logger, secret, observer: options.observer }, size, table, mark);
}

/** The open data file and what guards it. */
interface Journal {
  readonly path: string;
  readonly file: FileHandle;
  /** The file as opened, to notice when its path no longer leads to it. */
  readonly opened: FileIdentity;
  readonly lock: FileLock;
  readonly logger: Pick<Console, "info" | "warn">;
  /** What the file keeps of a key's client, and the secret it is made under (see `_client-secret.ts`). */
  readonly secret: ClientSecret;
  readonly observer: JsonFileStoreObserver | undefined;
}

/**
 * The store over its open file and the pets loaded from it; `mark` is the highest id handed out as
 * `<file>.last-id` holds it (see `_last-id.ts`).
 */
function journalStore({ path, file, opened, lock, logger, secret, observer }: Journal, committedSize: number, table: PetTable, mark: number): PetStore {
  const { mac } = secret;
  // Numbered from the highest id ever handed out: the file's last line may be gone (see `_last-id.ts`).
  table.passTo(mark);
  let reserved = mark;
  // The highest id acknowledged (or loaded): what a clean close leaves as the mark. An id given to a
  // create that was refused was never acknowledged, so the next run may give it again.
  let acknowledged = table.lastId;
  // Keyed creates not yet on disk, so a second create with the key waits for the first.
  const writing = new Map<string, Promise<Pet>>();
  let pending: PendingCreate[] = [];
  let flushing: Promise<void> | undefined;
  let failure: StoreUnavailableError | undefined;
  let closed = false;
  let usedUpSaid = false;

  async function flush(): Promise<void> {
    while (pending.length > 0 && failure === undefined) {
      const batch = pending;
      pending = [];
      await writeBatch(batch);
    }
    flushing = undefined;
  }

  /**
   * Whether the store can still take writes as it is: not after a failure (a write that failed, the
   * file lost), which lasts until a restart; looked at now, not at the next write, so a probe sees a
   * lost lock before a client does.
   */
  async function stillWritable(): Promise<StoreHealth> {
    if (failure !== undefined) return { ok: false, reason: failure.message };
    const loss = await lossOf(path, opened, lock).catch(() => undefined);
    return loss === undefined ? { ok: true } : { ok: false, reason: describeLoss(path, loss) };
  }

  /** Refuses this batch, and every create from now on, with `error`. */
  function fail(batch: readonly PendingCreate[], error: StoreUnavailableError): void {
    failure = error;
    for (const entry of [...batch, ...pending]) entry.reject(error);
    pending = [];
  }

  /** Saves what was acknowledged and fails the store, once the file was lost (see `_lost-data-file.ts`). */
  async function stopFor(loss: Loss, batch: readonly PendingCreate[]): Promise<void> {
    const reason = await rescue(file, committedSize, path, loss);
    logger.warn(`${path}: ${reason}`);
    fail(batch, new StoreUnavailableError(reason));
  }

  /** Refuses the creates no id is left for (503); says so in the log once, and the store goes on serving reads. */
  function refuseUsedUp(entries: readonly PendingCreate[]): void {
    if (entries.length === 0) return;
    const error = idsUsedUp();
    if (!usedUpSaid) logger.warn(`${path}: ${error.message}; creates answer 503`);
    usedUpSaid = true;
    for (const entry of entries) entry.reject(error);
  }

  async function writeBatch(all: readonly PendingCreate[]): Promise<void> {
    refuseUsedUp(all.slice(table.idsLeft));
    const batch = all.slice(0, table.idsLeft);
    if (batch.length === 0) return;
    // Before writing only the lock needs checking: without it another server may own the file. A
    // deleted or replaced file takes the write harmlessly, and is caught before anything is acknowledged.
    if (!(await lock.isHeld().catch(() => true))) {
      // The lock goes with a removed folder: find out what happened to the file as well.
      return await stopFor((await lossOf(path, opened, lock).catch(() => undefined)) ?? "unlocked", batch);
    }
    const pets = batch.map((entry) => table.number(entry.pet));
    const lines = batch.map((entry, i) => `${journalLine(pets[i]!, entry.key)}\n`).join("");
    let written: number;
    let loss: Loss | undefined;
    let fsyncSeconds = 0;
    try {
      const highest = table.lastId;
      if (highest > reserved) await writeLastId(path, (reserved = Math.min(highest + RESERVE_STEP, MAX_EXACT_INTEGER)));
      written = await append(file, lines);
      const syncing = performance.now();
      // Checked while the data reaches the disk (a path that cannot be checked, EACCES say, counts
      // as in place): the batch is acknowledged only once both are done, and never if the file was lost.
      [fsyncSeconds, loss] = await Promise.all([
        file.datasync().then(() => (performance.now() - syncing) / 1000),
        lossOf(path, opened, lock).catch(() => undefined),
      ]);
    } catch (error) {
      await file.truncate(committedSize).catch(() => {}); // best effort: a torn tail is dropped on load anyway
      fail(batch, new StoreUnavailableError(
        `the data file could not be written (${describeError(error)}); no pet can be created until the server restarts`,
      ));
      return;
    }
    if (loss !== undefined) return await stopFor(loss, batch);
    committedSize += written;
    acknowledged = pets[pets.length - 1]!.id;
    batch.forEach((entry, i) => {
      table.add(pets[i]!, entry.key);
      entry.resolve(pets[i]!);
    });
    observer?.committed(batch.length, fsyncSeconds);
    observer?.keysHeld(table.keysHeld);
  }

  function enqueue(pet: NewPet, key: JournalKey | undefined): Promise<Pet> {
    if (failure !== undefined) return Promise.reject(failure);
    if (closed) return Promise.reject(new StoreUnavailableError("the store is closed"));
    return new Promise((resolve, reject) => {
      pending.push({ pet, key, resolve, reject });
      flushing ??= flush();
    });
  }

  async function createWithKey(pet: NewPet, asked: IdempotencyKey): Promise<KeyedCreate> {
    const at = Date.now();
    const key = { client: mac(asked.client), key: asked.key };
    const earlier = table.keyed(key, at);
    if (earlier !== undefined) return { pet: earlier, replayed: true };
    const name = `${key.client}\n${key.key}`; // the MAC has no newline, so no two keys give one name
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

  /** Stores imported pets all or nothing (see `_import.ts`); creates wait meanwhile. */
  async function importPets(pets: AsyncIterable<MovedPet>, options: ImportOptions = {}): Promise<ImportSummary> {
    while (flushing !== undefined) await flushing;
    if (failure !== undefined) throw failure;
    if (closed) throw new StoreUnavailableError("the store is closed");
    let done!: () => void;
    flushing = new Promise((resolve) => (done = resolve));
    try {
      const steps = importSteps(options, { count: table.size, lastId: table.lastId }, secret);
      const records: { pet: Pet; key: JournalKey | undefined }[] = [];
      const imported = await writeImport(path, file, committedSize, pets, steps, (pet, key) => records.push({ pet, key }));
      reserved = await commitImport(path, { opened, lock }, imported.lastId, reserved);
      await reopen(imported.size);
      for (const { pet, key } of records) table.add(pet, key);
      acknowledged = Math.max(acknowledged, imported.lastId);
      return steps.summary(imported);
    } finally {
      flushing = undefined;
      done();
      if (pending.length > 0) flushing = flush();
    }
  }

  /** Opens the file the path now leads to (an import's copy), whose first `size` bytes are acknowledged. */
  async function reopen(size: number): Promise<void> {
    try {
      const next = await open(path, "a+");
      await file.close();
      file = next;
      opened = await file.stat();
      committedSize = size;
    } catch (error) {
      fail([], new StoreUnavailableError(`the imported file could not be opened (${describeError(error)}); restart the server`));
      throw failure;
    }
  }

  return {
    create: (pet) => enqueue(pet, undefined),
    createWithKey,
    exportPets: () => table.exportPets(({ client, key, at }) => ({ clientMac: client, key, at })),
    importPets,
    // The pets are in memory: each read also answers now, for the core (`_answerNow`, bench/RESULTS.md, issue 53).
    get: _methodNow((id: number) => table.get(id)),
    list: _methodNow((query: PageQuery) => table.list(query)),
    async health() {
      if (closed && failure === undefined) return { ok: false, reason: "the store is closed" };
      return await stillWritable();
    },
    // Every failure of this store lasts until a restart reloads the file; a closed one is stopping, as its process is.
    live: () => (closed && failure === undefined ? Promise.resolve({ ok: true }) : stillWritable()),
    async close() {
      if (closed) return;
      closed = true;
      await flushing;
      await file.close();
      // The exact mark, so a clean restart skips no id; only while the file is still this store's.
      if (acknowledged !== reserved && (await lock.isHeld().catch(() => false))) {
        await writeLastId(path, acknowledged).catch((error) => logger.warn(`${path}: ${path}.last-id could not be written (${describeError(error)})`));
      }
      try {
        await lock.release();
      } catch (error) {
        // A read-only folder, say: the next server takes the lock over once it sees this one gone.
        logger.warn(`${path}: the lock file ${path}.lock could not be removed (${describeError(error)}); ` +
          "the next server on this file takes it over once it sees this one has stopped");
      }
      logger.info(`closed ${path}: ${table.size} pets`);
    },
  };
}

