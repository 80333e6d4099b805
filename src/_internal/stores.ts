/**
 * @module
 * Private: the one entry the project's stores (`src/memory-store.ts` and `adapters/*-store/`) take
 * from the core beyond its public surface (`src/mod.ts`): the in-memory table the memory and
 * JSON-file stores hold their pets in, the refusals every store's import makes the same way, and the
 * error of a create once the ids are used up. Not a package entry point: a store of your own needs
 * only the public surface, and may copy from here what it likes. Everything it reaches lies in
 * `src/_internal/` or uses nothing of it, so it takes nothing from above (`test/source-rules.test.ts`).
 */
export type { KeyAt, PetTable } from "./_pet-table.ts";
export { createPetTable, importIntoTable } from "./_pet-table.ts";
export { importSummary, refuseUnlessAbove, refuseUnlessEmpty } from "./_import-rules.ts";
export { idsUsedUp } from "./_pet-index.ts";
export { _methodNow } from "./_answer-now.ts";
