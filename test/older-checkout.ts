/**
 * @module
 * An older checkout of the code, as the release before this one is to an upgrade: a copy of the
 * sources whose PostgreSQL schema ends one step before this checkout's, its newest step left out.
 * An upgrade from it to this checkout applies exactly the newest step, whichever that is, so the
 * tests of a rolling upgrade hold for every step added from now on.
 */
import { cpSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SCHEMA_VERSION } from "../adapters/postgres-store/mod.ts";

/** What a checkout needs to run the server and build its executable: the sources, and the packages beside them. */
const COPIED = ["src", "adapters", "package.json", "tsconfig.json", "deno.json"] as const;

/** The schema file every step lives in, and where the copy keeps it whole, under the one that leaves its newest step out. */
const SCHEMA = join("adapters", "postgres-store", "_schema.ts");
const SCHEMA_WHOLE = join("adapters", "postgres-store", "_schema-whole.ts");

/** The schema version of the older checkout: one below this checkout's. */
export const OLDER_SCHEMA_VERSION: number = SCHEMA_VERSION - 1;

/**
 * Copies the checkout at `root` into `folder` (made if missing) with its newest schema step left out,
 * `node_modules` linked; resolves with `folder`. Throws where there is no older version to make.
 */
export function olderCheckout(folder: string, root = "."): string {
  if (OLDER_SCHEMA_VERSION < 1) throw new Error(`schema version ${SCHEMA_VERSION} has no version before it to upgrade from`);
  mkdirSync(folder, { recursive: true });
  for (const name of COPIED) cpSync(join(root, name), join(folder, name), { recursive: true });
  symlinkSync(resolve(root, "node_modules"), join(folder, "node_modules"));
  renameSync(join(folder, SCHEMA), join(folder, SCHEMA_WHOLE));
  // A module's own exports win over those it re-exports with `*`: everything else of the file stays.
  writeFileSync(join(folder, SCHEMA), [
    'export * from "./_schema-whole.ts";',
    'import type { SchemaStep } from "./_schema-whole.ts";',
    'import { SCHEMA_STEPS as WHOLE } from "./_schema-whole.ts";',
    "export const SCHEMA_STEPS: readonly SchemaStep[] = WHOLE.slice(0, -1);",
    "export const SCHEMA_VERSION: number = SCHEMA_STEPS.length;",
    "",
  ].join("\n"));
  return folder;
}
