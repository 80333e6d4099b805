/**
 * @module
 * The `Idempotency-Key` request header on `POST /pets` (IETF httpapi draft "The Idempotency-Key
 * HTTP Header Field"): reading the key, scoping it to the API key that sent it, and refusing a
 * repeat while the first request with the key is still being answered.
 *
 * Keys are kept by the store with the pet they produced (`PetStore.createWithKey`), so a retry is
 * recognised after a restart and, with a shared database, on another instance.
 */
import type { Validation } from "./validation.ts";
import type { IdempotencyKey } from "./store.ts";

/** The longest accepted key, in characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** The response header that marks a replayed answer. */
export const REPLAY_HEADER = "idempotent-replayed";

// Visible ASCII without `"` and `\`, so a key reads the same bare or as a structured-field string.
const KEY_TEXT = new RegExp(`^[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);

/**
 * The key an `Idempotency-Key` header names: `undefined` when there is none, or the problem with it.
 * The draft writes the key as a structured-field string (`"8e03978e-…"`); the same characters sent
 * bare are the same key.
 */
export function readIdempotencyKey(header: string | null): Validation<string | undefined> {
  if (header === null) return { ok: true, value: undefined };
  const trimmed = header.trim();
  const key = trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  if (KEY_TEXT.test(key)) return { ok: true, value: key };
  return {
    ok: false,
    issues: [
      `"Idempotency-Key" must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters other than quotes and backslashes, ` +
      `bare or in double quotes, such as a UUID`,
    ],
  };
}

/** One app's idempotency bookkeeping (made in `_internal/_idempotency-guard.ts`): which keyed creates are being answered. */
export interface IdempotencyGuard {
  /** The scoped key for a request's `Idempotency-Key`, its client named by the SHA-256 of the request's API key. */
  scope(authorization: string | null, key: string): IdempotencyKey;
  /** Notes that a request is being answered under `key`; false when another one already is (the repeat answers 409). */
  startAnswering(key: IdempotencyKey): boolean;
  /** Notes that the request under `key` is answered, so a retry with it is no longer a 409. */
  doneAnswering(key: IdempotencyKey): void;
}
