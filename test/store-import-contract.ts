/**
 * @module
 * The export and import contract (`importChecks` in `src/testing/mod.ts`, published as
 * `animal-store/testing`) registered with `bun:test`, for stores that keep ids on import.
 */
import { describe, test } from "bun:test";
import type { PetStore } from "../src/mod.ts";
import { importChecks } from "../src/testing/mod.ts";

/** Runs the import contract against stores made by `open` (each test gets fresh, empty ones). */
export function importingStoreContract(name: string, open: () => Promise<PetStore>): void {
  describe(`${name} store import contract`, () => {
    for (const check of importChecks(open)) test(check.name, check.run);
  });
}
