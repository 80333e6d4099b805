/**
 * @module
 * The Animal Store service: a web-standard core that turns a `Request` into a `Response`. This is
 * the public surface (build, serve, store); modules whose names start with `_` are private.
 *
 * ```ts
 * import { createApp, createMemoryStore } from "./mod.ts";
 * const app = createApp({ store: createMemoryStore(), apiKeys: ["secret"] });
 * const response = await app.fetch(new Request("http://localhost/v1/pets", {
 *   headers: { authorization: "Bearer secret" },
 * }));
 * ```
 */
export type { App, AppOptions, ConnectionInfo, Handler } from "./app.ts";
export { createApp, DEFAULT_MAX_BODY_BYTES } from "./app.ts";
export type { CorsOrigins } from "./cors.ts";
export type { ErrorBody, ErrorCode } from "./errors.ts";
export { ERROR_STATUS } from "./errors.ts";
export type { MemoryStoreOptions } from "./memory-store.ts";
export { createMemoryStore } from "./memory-store.ts";
export type { Json } from "./openapi.ts";
export { OPENAPI_DOCUMENT, OPENAPI_JSON } from "./openapi.ts";
export type { NewPet, Pet, PetStatus } from "./pet.ts";
export type { RateLimit } from "./rate-limit.ts";
export { DEFAULT_MAX_ADDRESSES, parseRateLimit } from "./rate-limit.ts";
export { isPetStatus, MAX_EXACT_INTEGER, NAME_MAX_LENGTH, PET_STATUSES, withId } from "./pet.ts";
export type { IdempotencyKey, KeyedCreate, PageQuery, PetStore, StoreHealth } from "./store.ts";
export { IDEMPOTENCY_KEY_TTL_MS, StoreUnavailableError } from "./store.ts";
