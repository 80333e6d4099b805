/**
 * @module
 * What the data file keeps of the API key behind an idempotency key: an HMAC-SHA-256 of the
 * client's digest under a random secret kept beside the data file (`pets.json.secret`, mode 600).
 *
 * The digest the core hands the store is an unsalted SHA-256 of the API key. Written as it is,
 * anyone who can read the data file (a backup, a copy sent along with a bug report) could recover
 * a weak API key by hashing guesses from a dictionary; the MAC cannot be checked against a guess
 * without the secret. The secret is made once, when a store first opens the file.
 */
import { Buffer } from "node:buffer";
import { createHmac, randomBytes } from "node:crypto";
import { readSecret, writeSecretOnce } from "./_secret-file.ts";

/** Turns a client digest into what the data file keeps of it. */
export type ClientMac = (client: string) => string;

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
const SECRET_TEXT = /^[A-Za-z0-9_-]{43}$/;

/** The MAC a secret (its text, as the file beside the data file holds it) makes of a client digest. */
export function macUnder(secretText: string): ClientMac {
  const secret = Buffer.from(secretText, "base64url");
  return (client) => createHmac("sha256", secret).update(client).digest("base64url");
}

/** Whether `text` is a secret as `openClientSecret` makes them: 43 base64url characters. */
export function isSecretText(text: string): boolean {
  return SECRET_TEXT.test(text);
}

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
