/**
 * @module
 * Private, shared by the JSON-file store and the server's checks: a folder and its missing parents made one at
 * a time. `mkdir` with `{ recursive: true }` never returns on Node 20 where a folder cannot be made in
 * an existing parent that answers `ENOENT` (`/proc/new`): it takes the parent for missing and loops.
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** Makes `folder` and any missing parent; throws the first error, as `mkdir` does. */
export function makeFolder(folder: string): void {
  if (isFolder(folder)) return;
  const parent = dirname(folder);
  if (parent !== folder) makeFolder(parent);
  try {
    mkdirSync(folder);
  } catch (error) {
    // Made meanwhile by another server starting on the same folder; a file there stays an error.
    if (!isFolder(folder)) throw error;
  }
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
