/**
 * @module
 * Private: what the export format (`adapters/server/_pet-lines.ts`) takes of the core beyond its
 * public surface, until the stores' own internal entry replaces it (issue 49); the server's entry is
 * `src/_server-entry.ts`. The one file of `_internal/` that imports from above it.
 */
export { keyProblem } from "../move-pets/mod.ts";
export { STORED_PET_FIELDS, validateStoredPet } from "../validate-pet.ts";
