/**
 * @module
 * Temporary folders for tests, removed when the test process ends. They live under `data/` because
 * the Deno server may only touch that folder (its --allow-read/--allow-write).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";

const ROOT = join("data", "test-runs");

const folders: string[] = [];
process.on("exit", () => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A new empty folder under `data/test-runs/`. */
export function tempFolder(): string {
  mkdirSync(ROOT, { recursive: true });
  const folder = mkdtempSync(join(ROOT, "run-"));
  folders.push(folder);
  return folder;
}

/** A path for a data file that does not exist yet, in a new temp folder. */
export function tempDataFile(): string {
  return join(tempFolder(), "pets.json");
}
