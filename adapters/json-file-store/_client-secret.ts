/**
 * @module
 * The secret beside the data file (`pets.json.secret`, mode 600) that the file's idempotency keys
 * keep their API key's digest under, as an HMAC (see `../_client-mac.ts`): made once, when a store
 * first opens the file.
 */
import { randomBytes } from "node:crypto";
import type { ClientMac } from "../_client-mac.ts";
import { isSecretText, macUnder } from "../_client-mac.ts";
import { readSecret, writeSecretOnce } from "../_files/secret-file.ts";

/** The MAC of the data file at `path`, and whether its secret was made just now. */
export interface ClientSecret {
  readonly mac: ClientMac;
  /** The secret as its file holds it, to tell whether keys moved from elsewhere were made under it. */
  readonly text: string;
  /** Whether the file had no secret, so this one is new (and not yet kept). */
  readonly created: boolean;
  /** Writes a new secret beside the data file (durably, mode 600); does nothing for one read from there. */
  keep(): Promise<void>;
}

const SECRET_BYTES = 32;

/**
 * Reads the secret beside the data file at `path`, or makes one in memory if there is none (`keep`
 * writes it, once the file has loaded: a file that cannot load gets nothing written beside it).
 */
export async function openClientSecret(path: string): Promise<ClientSecret> {
  const secretPath = `${path}.secret`;
  const read = await readSecret(secretPath);
  if (read.kind === "unusable") {
    throw new Error(`Cannot open ${path}: ${secretPath}: ${read.problem}; restore it from a backup as a regular file (mode 600), or delete it to make a new one`);
  }
  const found = read.kind === "found" ? read.text : undefined;
  const text = found ?? randomBytes(SECRET_BYTES).toString("base64url");
  if (!isSecretText(text)) {
    throw new Error(`Cannot open ${path}: ${secretPath} does not hold a secret (43 base64url characters); restore it from a backup, or delete it to make a new one`);
  }
  return {
    mac: macUnder(text),
    text,
    created: found === undefined,
    keep: () => found === undefined ? writeSecretOnce(secretPath, text) : Promise.resolve(),
  };
}
