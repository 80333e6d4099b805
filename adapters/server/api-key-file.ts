/**
 * @module
 * The API key the standalone server generates when `API_KEYS` is not set, kept in the folder the
 * store's row names (beside the data file, `data/api-key`, mode 600) so that later starts reuse it:
 * the pets stay, and so does the key every curl command and the reference page were given. With
 * `STORE=memory` nothing is kept, the key no more than the pets.
 */
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isBearerToken } from "../../src/_server-entry.ts";
import { errorCode } from "../_files/error-code.ts";
import { readSecret, writeSecretOnce } from "../_files/secret-file.ts";

/** The file in the store's folder that keeps the generated key. */
const API_KEY_FILE = "api-key";

/** A generated key and where it is kept (`path` absent when it is not kept). */
export interface GeneratedKey {
  readonly key: string;
  readonly path?: string;
  /** Whether the key was read from `path`, made by an earlier start. */
  readonly reused: boolean;
}

/** How many times a key file that vanished between a failed write and the read is looked for again. */
const KEEP_ATTEMPTS = 5;

/**
 * The key kept in `folder`, or `generated`, written there first (mode 600, in one step: a temp file
 * linked into place, so a server starting at the same moment reads one whole key, and the first wins).
 * A key file that is not a regular file of its owner's alone is refused (`_files/secret-file.ts`).
 */
export async function keepApiKey(folder: string, generated: string): Promise<GeneratedKey> {
  const path = join(folder, API_KEY_FILE);
  for (let attempt = 0; attempt < KEEP_ATTEMPTS; attempt++) {
    const found = await attemptTo(folder, path, () => readSecret(path));
    if (found.kind === "unusable") throw new Error(`Cannot use ${path}: ${found.problem}; delete it to have a new one made, or set API_KEYS`);
    if (found.kind === "found") {
      if (!isBearerToken(found.text)) throw new Error(`Cannot use ${path}: it does not hold an API key (one bearer token); delete it to have a new one made, or set API_KEYS`);
      return { key: found.text, path, reused: true };
    }
    if (await attemptTo(folder, path, () => createKeyFile(path, generated))) return { key: generated, path, reused: false };
    // Not created: another server starting at the same moment wrote it first; read that one.
  }
  throw new Error(`Cannot keep the generated API key in ${path}: it appeared and vanished ${KEEP_ATTEMPTS} times; set API_KEYS, or stop what else writes there`);
}

/** Runs one file operation, naming the key file and what failed when it throws. */
async function attemptTo<T>(folder: string, path: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    const reason = errorCode(error) ?? (error instanceof Error ? error.message : String(error));
    throw new Error(`Cannot keep the generated API key in ${path} (${reason}); set API_KEYS, or let the server write to ${folder}`);
  }
}

/** Writes the key file; false when another server starting at the same moment wrote it first. */
async function createKeyFile(path: string, key: string): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeSecretOnce(path, key);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
}

/**
 * The line the server prints about a generated key: the key when it was made now, and whether and
 * where it is kept. A kept key is not printed again: the file is its one copy, readable by its owner.
 */
export function keyNotice(generated: GeneratedKey, store: string): string {
  if (generated.path === undefined) return `API_KEYS is not set; generated API key: ${generated.key} (not kept: STORE=${store})`;
  if (generated.reused) return `API_KEYS is not set; using the API key an earlier start kept in ${generated.path} (read it there)`;
  return `API_KEYS is not set; generated API key: ${generated.key} (kept in ${generated.path} for later starts)`;
}
