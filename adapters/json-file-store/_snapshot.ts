/**
 * @module
 * The data file read for an export while a server may be writing it: without its lock and without
 * writing anything, up to its last whole line. Lines are only ever appended whole, so what is read
 * is every pet up to some line and none after it, a consistent snapshot; a line still being written
 * is torn, and left out.
 */
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import type { MovedPet } from "../../src/mod.ts";
import { IDEMPOTENCY_KEY_TTL_MS } from "../../src/mod.ts";
import { isSecretText } from "../_client-mac.ts";
import { errorCode } from "../_files/error-code.ts";
import { readSecret } from "../_files/secret-file.ts";
import { readJournal } from "./_journal.ts";

/** How much of the file an export reads at a time: small, so what is held between writes stays small (256 KiB: 9 MiB more peak RSS at 1,000,000 pets). */
const EXPORT_CHUNK_BYTES = 64 * 1024;

/** A data file opened for an export: its pets, the secret their keys were made under, and `close`. */
export interface JsonFileSnapshot {
  /** Every pet in id order, with its key when younger than 24 hours. */
  exportPets(): AsyncIterable<MovedPet>;
  /** The secret beside the file that its keys' `clientMac` was made under, when it can be used. */
  clientMacSecrets(): Promise<readonly string[]>;
  /** Closes the file. */
  close(): Promise<void>;
}

/** Opens the data file at `path` to export it; rejects naming it when it does not exist. */
export async function openSnapshot(path: string): Promise<JsonFileSnapshot> {
  let file: FileHandle;
  try {
    file = await open(path, "r");
  } catch (error) {
    throw errorCode(error) === "ENOENT" ? new Error(`${path} does not exist`) : error;
  }
  return {
    async *exportPets() {
      const now = Date.now();
      for await (const pets of readJournal(file, path, "export", {}, EXPORT_CHUNK_BYTES)) {
        for (const { pet, key } of pets) yield key !== undefined && now - key.at < IDEMPOTENCY_KEY_TTL_MS ? { pet, key } : { pet };
      }
    },
    async clientMacSecrets() {
      const read = await readSecret(`${path}.secret`);
      // Only a usable secret goes along; without it the file's keys stay behind in another store.
      return read.kind === "found" && isSecretText(read.text) ? [read.text] : [];
    },
    close: () => file.close(),
  };
}
