/**
 * @module
 * The store contract (`src/testing/mod.ts`, published as `animal-store/testing`) registered with
 * `bun:test`, to run against each of the project's stores.
 */
import { describe, test } from "bun:test";
import type { PetStore } from "../src/mod.ts";
import { storeChecks } from "../src/testing/mod.ts";

/** Runs the store contract against stores made by `open` (each test gets a fresh, empty store). */
export function storeContract(name: string, open: () => Promise<PetStore>): void {
  describe(`${name} store contract`, () => {
    for (const check of storeChecks(open)) test(check.name, check.run);
  });
}
