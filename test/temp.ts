/**
 * @module
 * Temporary folders for tests, removed when the test process ends.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const folders: string[] = [];
process.on("exit", () => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A new empty folder under the system's temp folder. */
export function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "animal-store-"));
  folders.push(folder);
  return folder;
}

/** A path for a data file that does not exist yet, in a new temp folder. */
export function tempDataFile(): string {
  return join(tempFolder(), "pets.json");
}
