/**
 * @module
 * Temporary folders for tests, removed when the test run ends. They live under `data/` because the
 * Deno server may only touch that folder (its --allow-read/--allow-write).
 */
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";

// Gone once the last run using it has ended.
const TEMP_ROOT = join("data", "test-runs");

const folders: string[] = [];
// For scripts (`bun conformance/run.ts`). `bun test` fires no "exit" event: there `remove-temp.ts`,
// the suite's preload, calls `removeTempFolders` once every file has run.
process.on("exit", () => removeTempFolders());

/** Removes every folder this process made, and the root too when no other run still uses it. */
export function removeTempFolders(): void {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  try {
    rmdirSync(TEMP_ROOT);
  } catch {
    // Absent, or another run's folders are still in it.
  }
}

/** A new empty folder under `data/test-runs/`. */
export function tempFolder(): string {
  mkdirSync(TEMP_ROOT, { recursive: true });
  const folder = mkdtempSync(join(TEMP_ROOT, "run-"));
  folders.push(folder);
  return folder;
}

/** A path for a data file that does not exist yet, in a new temp folder. */
export function tempDataFile(): string {
  return join(tempFolder(), "pets.json");
}
