/**
 * @module
 * An import straight into a data file that no server has open, as `animal-store import` makes it:
 * the file opened as its one writer (the lock, as a store takes it), its pets counted but not kept,
 * the imported pets written to the copy as they are read and the copy put in place, all or nothing
 * as the store's own import (`_import.ts`). Nothing is indexed, so memory stays flat whatever the
 * count (a store keeps every pet in memory: 500 MiB for 1,000,000); the file is as the store's
 * import would leave it, and a server opening it afterwards loads it as ever.
 */
import type { ImportOptions, ImportSummary, MovedPet } from "../../src/mod.ts";
import { commitImport, importSteps, writeImport } from "./_import.ts";
import { openLocked } from "./_open-file.ts";
import { openSnapshot } from "./_snapshot.ts";

/** A data file opened to import into. */
export interface JsonFileImport {
  /** Stores `pets` under their ids, all or nothing; refused unless the file is empty or `append`. */
  importPets(pets: AsyncIterable<MovedPet>, options?: ImportOptions): Promise<ImportSummary>;
  /** Every pet of the file as it is now, read from the disk in id order (the import's read-back). */
  exportPets(): AsyncIterable<MovedPet>;
  /** Closes the file and lets go of its lock. */
  close(): Promise<void>;
}

/**
 * Opens (creating it and its folder if needed) the data file at `path` to import into, holding its
 * lock until closed; a server holding it makes this reject, naming it.
 */
export async function openJsonFileImport(path: string, options: { readonly logger?: Pick<Console, "warn"> } = {}): Promise<JsonFileImport> {
  let count = 0;
  let lastLoaded = 0;
  const locked = await openLocked(path, "open", options.logger ?? console, (pet) => {
    count++;
    lastLoaded = pet.id;
  });
  let used = false;
  return {
    async importPets(pets, importOptions = {}) {
      // Once committed, the path leads to the copy, not to the file held open here.
      if (used) throw new Error(`Cannot import into ${path} twice through one opening`);
      used = true;
      // Above the highest id ever handed out, as the store numbers them (its `lastId` is passed to the mark).
      const steps = importSteps(importOptions, { count, lastId: Math.max(lastLoaded, locked.mark) }, locked.secret);
      const imported = await writeImport(path, locked.file, locked.size, pets, steps);
      await commitImport(path, locked, imported.lastId, locked.mark);
      return steps.summary(imported);
    },
    async *exportPets() {
      const snapshot = await openSnapshot(path);
      try {
        yield* snapshot.exportPets();
      } finally {
        await snapshot.close();
      }
    },
    async close() {
      await locked.file.close();
      await locked.lock.release();
    },
  };
}
