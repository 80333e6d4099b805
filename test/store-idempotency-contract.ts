/**
 * @module
 * The contract of the optional store methods (`idempotencyChecks` in `src/testing/mod.ts`, published as
 * `animal-store/testing`) registered with `bun:test`, to run beside `storeContract`.
 */
import { describe, test } from "bun:test";
import type { PetStore } from "../src/mod.ts";
import { idempotencyChecks } from "../src/testing/mod.ts";

/** Runs the idempotency and health contract against stores made by `open` (each test gets a fresh, empty store). */
export function idempotentStoreContract(name: string, open: () => Promise<PetStore>): void {
  describe(`${name} store idempotency contract`, () => {
    for (const check of idempotencyChecks(open)) test(check.name, check.run);
  });
}
