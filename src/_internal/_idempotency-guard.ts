/**
 * @module
 * Private: one app's `IdempotencyGuard` (`idempotency.ts`), a set of the keys whose creates are
 * being answered.
 */
import type { IdempotencyGuard } from "../idempotency.ts";
import { tableKey } from "./_idempotency-keys.ts";

/** Empty bookkeeping for one app, which names a request's client by `digestOf` its `Authorization` header (the key ring's `tokenDigest`). */
export function createIdempotencyGuard(digestOf: (authorization: string | null) => string): IdempotencyGuard {
  const inFlight = new Set<string>();
  return {
    scope: (authorization, key) => ({ client: digestOf(authorization), key }),
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
