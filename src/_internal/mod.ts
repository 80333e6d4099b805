/**
 * @module
 * Private: the one entry the project's own server (`adapters/server/`) takes from the core beyond its
 * public surface (`src/mod.ts`), so the server reads as an example of using the library and what it
 * needs besides is listed here, not spread over paths (`test/source-rules.test.ts` keeps it so). Not a
 * package entry point: a host never needs it.
 */
export { isBearerToken } from "../auth.ts";
export { FORBIDDEN_IN_HEADER_VALUE, HEADER_NAME } from "./_header-records.ts";
export { publicUrlProblem } from "../public-origin.ts";
export { ROUTES } from "../routes.ts";
export { rawTarget, splitUrl } from "./_request-target.ts";
export { keyProblem } from "../move-pets/mod.ts";
export { STORED_PET_FIELDS, validateStoredPet } from "../validate-pet.ts";
