/**
 * @module
 * The Animal Store service: a web-standard core that turns a `Request` into a `Response`. This is
 * the public surface (build, serve, store, plug in); modules whose names start with `_` are private.
 * Optional features are plugs, each in its own entry: `animal-store/cors`, `animal-store/rate-limit`,
 * `animal-store/reference-page`, `animal-store/health`; features that act on the answer are wraps
 * (`Wrap`, `setHeaders`; see `types.ts`), such as `animal-store/tracing`.
 *
 * ```ts
 * import { createApp, createMemoryStore } from "./mod.ts";
 * const app = createApp({ store: createMemoryStore(), apiKeys: ["secret"] });
 * const response = await app.fetch(new Request("http://localhost/v1/pets", {
 *   headers: { authorization: "Bearer secret" },
 * }));
 * ```
 */
export type { AppOptions } from "./app.ts";
export { createApp, DEFAULT_MAX_BODY_BYTES } from "./app.ts";
export type { ApiKey, ApiKeyEntry, KeyChanges, KeyCheck, KeyList, KeyRing, KeyScope, KnownKey } from "./api-keys/mod.ts";
export { createKeyRing, HASH_PREFIX } from "./api-keys/mod.ts";
export { keyFileLine, MAX_KEY_LINE, parseKeyFile } from "./api-keys/key-file.ts";
export type { ErrorBody, ErrorCode } from "./errors.ts";
export { ERROR_STATUS, errorResponse } from "./errors.ts";
export { jsonResponse } from "./_internal/_json-response.ts";
export type { MemoryStoreOptions } from "./memory-store.ts";
export { createMemoryStore } from "./memory-store.ts";
export { OPENAPI_DOCUMENT, OPENAPI_JSON } from "./openapi/mod.ts";
export type { NewPet, Pet, PetStatus } from "./pet.ts";
export { isPetStatus, MAX_EXACT_INTEGER, NAME_MAX_LENGTH, PET_STATUSES, withId } from "./pet.ts";
export type { TrustedProxyHeader } from "./_internal/_forwarded.ts";
export type { AroundStoreCall, IdempotencyKey, KeyedCreate, PageQuery, PetEffect, PetStore, StoreHealth, StoreMethod } from "./store.ts";
export { IDEMPOTENCY_KEY_TTL_MS, STORE_METHODS, StoreUnavailableError, wrapStore } from "./store.ts";
export type { ImportOptions, ImportSummary, MovedKey, MovedPet, MovingStore } from "./move-pets/moved.ts";
export { ImportRefusedError } from "./move-pets/moved.ts";
export { checkPets, exportPets, importPets, petLine, readPetLine } from "./move-pets/mod.ts";
export { setHeaders } from "./set-headers.ts";
export type { App, ConnectionInfo, Handler, Json, NamedReport, Plug, PlugHeaders, PlugOutcome, PlugReport, PlugSetup, PlugStep, PlugSteps, Wrap } from "./types.ts";
export type { Validation } from "./validation.ts";
