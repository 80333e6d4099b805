/**
 * @module
 * Private: one app's `IdempotencyGuard` (`idempotency.ts`), a set of the keys whose creates are
 * being answered and a memo of its API keys' digests.
 */
import type { IdempotencyGuard } from "../idempotency.ts";
import { tableKey } from "./_idempotency-keys.ts";

/** Empty bookkeeping for one app, which reads a request's API key from its `Authorization` header with `tokenOf` (`auth.ts`'s). */
export function createIdempotencyGuard(tokenOf: (authorization: string | null) => string | undefined): IdempotencyGuard {
  const inFlight = new Set<string>();
  // Only configured keys get this far (the key check comes first), so this map stays small.
  const digests = new Map<string, Promise<string>>();
  return {
    async scope(authorization, key) {
      const token = tokenOf(authorization) ?? "";
      let digest = digests.get(token);
      if (digest === undefined) {
        digest = sha256(token);
        digests.set(token, digest);
      }
      return { client: await digest, key };
    },
    startAnswering(key) {
      const name = tableKey(key);
      if (inFlight.has(name)) return false;
      inFlight.add(name);
      return true;
    },
    doneAnswering(key) {
      inFlight.delete(tableKey(key));
    },
  };
}

/** The SHA-256 digest of a text, base64url-encoded without padding (43 characters). */
async function sha256(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
