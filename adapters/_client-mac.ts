/**
 * @module
 * Private, shared by the JSON-file store (which makes them) and the PostgreSQL store (which matches
 * the ones moved into it): what a JSON-file store keeps of the API key behind an idempotency key, an
 * HMAC-SHA-256 of the client's digest under a random secret kept beside its data file, and what such
 * a secret looks like (an export carries it on its last line).
 *
 * The digest the core hands a store is an unsalted SHA-256 of the API key. Written as it is, anyone
 * who can read the data file (a backup, a copy sent along with a bug report) could recover a weak API
 * key by hashing guesses from a dictionary; the MAC cannot be checked against a guess without the secret.
 */
import { Buffer } from "node:buffer";
import { createHmac } from "node:crypto";

/** Turns a client digest into what the data file keeps of it. */
export type ClientMac = (client: string) => string;

const SECRET_TEXT = /^[A-Za-z0-9_-]{43}$/;

/** The MAC a secret (its text, as the file beside the data file holds it) makes of a client digest. */
export function macUnder(secretText: string): ClientMac {
  const secret = Buffer.from(secretText, "base64url");
  return (client) => createHmac("sha256", secret).update(client).digest("base64url");
}

/** Whether `text` is a secret as the JSON-file store makes them: 32 random bytes as 43 base64url characters. */
export function isSecretText(text: string): boolean {
  return SECRET_TEXT.test(text);
}
