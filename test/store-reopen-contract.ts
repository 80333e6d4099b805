/**
 * @module
 * The contract across a close and reopen (`reopenChecks` in `src/testing/mod.ts`, published as
 * `animal-store/testing`) registered with `bun:test`, for the stores that keep their pets.
 */
import { describe, test } from "bun:test";
import type { ReopenableStore } from "../src/testing/mod.ts";
import { reopenChecks } from "../src/testing/mod.ts";

/** Runs the reopen contract against data made by `fresh` (each test gets its own). */
export function reopenableStoreContract(name: string, fresh: () => Promise<ReopenableStore>): void {
  describe(`${name} store reopen contract`, () => {
    for (const check of reopenChecks(fresh)) test(check.name, check.run);
  });
}
