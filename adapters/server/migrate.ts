/**
 * @module
 * `animal-store migrate [--dry-run] [--to VERSION]`: brings the store the settings name to the
 * version of its tables or file this animal-store reads, as its row in `stores.ts` says, printing
 * each step applied. `--dry-run` prints what would run (PostgreSQL's as an SQL script: the comments
 * say what each step is for) and changes nothing; `--to` stops at an older version, as an upgrade
 * in stages does. Steps are never undone: a store past the version asked for is left as it is.
 *
 * Exit codes: 0 done, or nothing to do; 1 the store could not be read or brought there (nothing of
 * the steps was kept); 2 a version this animal-store does not know.
 */
import process from "node:process";
import type { Config } from "./config.ts";
import type { MigrateRequest, OpenContext, StoreMigration } from "./stores.ts";
import { refuse, storeName } from "./_move-common.ts";
import { serverStore } from "./stores.ts";

/** Migrates the store the settings name; resolves with the exit code. */
export async function runMigrate(config: Config, own: Readonly<Record<string, string>>, context: OpenContext): Promise<number> {
  const to = own["--to"];
  if (to !== undefined && !/^[1-9][0-9]{0,5}$/.test(to)) return refuse("migrate", [`--to takes a version, a whole number from 1, got "${to}"`]);
  const request: MigrateRequest = { dryRun: own["--dry-run"] !== undefined, ...(to === undefined ? {} : { to: Number(to) }) };
  const migrate = serverStore(config).migrate;
  if (migrate === undefined) {
    process.stdout.write(`${storeName(config)} keeps nothing between starts: there is nothing to migrate\n`);
    return 0;
  }
  try {
    const migration = await migrate(config, context, request);
    process.stdout.write(request.dryRun ? dryRunText(storeName(config), migration) : appliedText(storeName(config), migration));
    return 0;
  } catch (error) {
    if (error instanceof RangeError) return refuse("migrate", [error.message]);
    process.stderr.write(`animal-store migrate: ${error instanceof Error ? error.message : String(error)}; nothing was changed\n`);
    return 1;
  }
}

/** What was applied, a line a step, then where the store stands. */
function appliedText(name: string, migration: StoreMigration): string {
  const applied = migration.steps.map((step) => `applied step ${step.version}: ${step.summary}\n`).join("");
  return `${applied}${name} is at ${migration.versionName} ${migration.to}${standing(migration)}\n`;
}

/** What a migration would run: for SQL, a script whose comments say what each step is for. */
function dryRunText(name: string, migration: StoreMigration): string {
  const { versionName, from, to, steps, around } = migration;
  const comment = around === undefined ? "" : "-- ";
  if (steps.length === 0) return `${comment}${name} is at ${versionName} ${from}${standing(migration)}\n`;
  const lines = [`${comment}${name} is at ${versionName} ${from}; migrate would take it to ${versionName} ${to}, running:`];
  lines.push(...(around?.before ?? []).map((statement) => `${statement};`));
  for (const step of steps) {
    lines.push(`${comment}step ${step.version}: ${step.summary}`, ...step.statements.map((statement) => `${statement};`));
  }
  lines.push(...(around?.after ?? []).map((statement) => `${statement};`), `${comment}nothing was changed (--dry-run)`);
  return `${lines.join("\n")}\n`;
}

/** What the version the store is at means next to this code's. */
function standing({ from, to, latest, steps }: StoreMigration): string {
  if (to > latest) return `, newer than this animal-store's ${latest}: nothing to do (steps are never undone)`;
  if (steps.length === 0) return `: nothing to do${to === latest ? " (this animal-store's version)" : ""}`;
  return ` (was ${from}${to < latest ? `; this animal-store's is ${latest}` : ""})`;
}
