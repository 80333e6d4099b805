/**
 * @module
 * The API key the standalone server generates when `API_KEYS` is not set, kept in the data folder
 * (`data/api-key`, mode 600) so that later starts reuse it: the pets stay, and so does the key
 * every curl command and the reference page were given. With `STORE=memory` nothing is kept, the
 * key no more than the pets.
 */
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isBearerToken } from "../../src/auth.ts";
import { readSecret, writeSecretOnce } from "../json-file-store/_durable-write.ts";
import { errorCode } from "../json-file-store/_file-lock.ts";

/** The file in the data folder that keeps the generated key. */
const API_KEY_FILE = "api-key";

/** A generated key and where it is kept (`path` absent when it is not kept). */
export interface GeneratedKey {
  readonly key: string;
  readonly path?: string;
  /** Whether the key was read from `path`, made by an earlier start. */
  readonly reused: boolean;
}

/**
 * The key kept in `folder`, or `generated`, written there first (mode 600, in one step: a temp file
 * linked into place, so a server starting at the same moment reads one whole key, and the first wins).
 */
export async function keepApiKey(folder: string, generated: string): Promise<GeneratedKey> {
  const path = join(folder, API_KEY_FILE);
  let found: string | undefined;
  try {
    found = await readSecret(path);
    if (found === undefined && await createKeyFile(path, generated)) return { key: generated, path, reused: false };
  } catch (error) {
    const reason = errorCode(error) ?? (error instanceof Error ? error.message : String(error));
    throw new Error(`Cannot keep the generated API key in ${path} (${reason}); set API_KEYS, or let the server write to ${folder}`);
  }
  // Not created: another server starting at the same moment wrote it first.
  if (found === undefined) return keepApiKey(folder, generated);
  if (!isBearerToken(found)) throw new Error(`Cannot use ${path}: it does not hold an API key (one bearer token); delete it to have a new one made, or set API_KEYS`);
  return { key: found, path, reused: true };
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

/** The line the server prints about a generated key: the key, and whether and where it is kept. */
export function keyNotice(generated: GeneratedKey): string {
  if (generated.path === undefined) return `API_KEYS is not set; generated API key: ${generated.key} (not kept: STORE=memory)`;
  if (generated.reused) return `API_KEYS is not set; using the API key kept in ${generated.path}: ${generated.key}`;
  return `API_KEYS is not set; generated API key: ${generated.key} (kept in ${generated.path} for later starts)`;
}
