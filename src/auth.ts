/**
 * @module
 * Bearer API key checking (RFC 6750), in constant time.
 *
 * A token is compared with each key over the whole length of the key, character by character,
 * without stopping at the first difference: the time taken depends only on the configured keys'
 * lengths, never on how much of a guess is right. (Comparing SHA-256 digests would do the same, but
 * `crypto.subtle.digest` is asynchronous and cost more than everything else a list request does.)
 */
import { errorResponse } from "./errors.ts";

/** The outcome of checking an `Authorization` header. */
export type AuthOutcome = "ok" | "missing" | "invalid";

/** Checks the `Authorization` header of a request against the configured keys. */
export type KeyChecker = (authorization: string | null) => AuthOutcome;

// RFC 6750 §2.1: a bearer token has the token68 syntax (RFC 9110 §11.2).
const TOKEN68 = "[A-Za-z0-9\\-._~+/]+=*";
// RFC 9110 §11.4: the scheme is case-insensitive and followed by one or more spaces.
const BEARER = new RegExp(`^bearer +(${TOKEN68}) *$`, "i");
const BEARER_SCHEME = /^bearer(?: |$)/i;
const BEARER_TOKEN = new RegExp(`^${TOKEN68}$`);

/** Whether a key can be sent as a bearer token (RFC 6750 token68: letters, digits, `-._~+/`, then `=`). */
export function isBearerToken(key: string): boolean {
  return BEARER_TOKEN.test(key);
}

/** The token of a well-formed `Authorization: Bearer <token>` header, or `undefined`. */
export function bearerToken(authorization: string | null): string | undefined {
  return authorization === null ? undefined : BEARER.exec(authorization)?.[1];
}

/** A checker that accepts exactly the given keys; throws when there are none or one is not a token. */
export function createKeyChecker(keys: readonly string[]): KeyChecker {
  if (keys.length === 0) throw new RangeError("Cannot check API keys: no key is configured");
  if (!keys.every(isBearerToken)) {
    throw new RangeError("Cannot check API keys: a key holds characters a bearer token cannot carry");
  }
  const configured = [...keys];
  return (authorization) => {
    if (authorization === null || !BEARER_SCHEME.test(authorization)) return "missing";
    const token = bearerToken(authorization);
    if (token === undefined) return "invalid";
    let matched = false;
    for (const key of configured) matched = equalInConstantTime(token, key) || matched;
    return matched ? "ok" : "invalid";
  };
}

/** Whether `token` equals `key`, looking at every character of `key` whatever differs. */
function equalInConstantTime(token: string, key: string): boolean {
  let difference = token.length ^ key.length;
  // Past the token's end charCodeAt gives NaN, which `| 0` turns into 0: still a difference.
  for (let i = 0; i < key.length; i++) difference |= key.charCodeAt(i) ^ (token.charCodeAt(i) | 0);
  return difference === 0;
}

/** The 401 for a request without a valid key, with its `WWW-Authenticate` challenge and the headers every answer to the request carries. */
export function unauthorized(outcome: Exclude<AuthOutcome, "ok">, realm: string, headers: Readonly<Record<string, string>>): Response {
  // RFC 6750 §3: name the error only when a bearer token was sent.
  const challenge = outcome === "missing" ? `Bearer realm="${realm}"` : `Bearer realm="${realm}", error="invalid_token"`;
  const message = outcome === "missing"
    ? "Missing API key: send it as Authorization: Bearer <key>"
    : "Invalid API key: the bearer token is not a known key";
  return errorResponse("unauthorized", message, { ...headers, "www-authenticate": challenge });
}
