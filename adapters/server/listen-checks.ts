/**
 * @module
 * Checks made before the server starts, so a setting that cannot work stops it with one line naming
 * the setting and the fix (exit 2) rather than a runtime's own error: a `HOST` this machine cannot
 * listen on, a `DATA_FILE` in a folder where no file can be made.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import process from "node:process";

/** Why this machine cannot listen on `host`, or `undefined` when it can (tried on a free port, then let go). */
export function hostProblem(host: string): Promise<string | undefined> {
  return new Promise((settle) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      settle(`HOST "${host}" is not an address of this machine (${error.code ?? error.message}); set HOST to one of its addresses, e.g. 127.0.0.1, or 0.0.0.0 for every interface`);
    });
    probe.listen(0, host, () => probe.close(() => settle(undefined)));
  });
}

/** Why no data file can be kept at `dataFile`'s folder, or `undefined` when a file can be made there. */
export function dataFileProblem(dataFile: string): string | undefined {
  const folder = dirname(resolve(dataFile));
  // The store writes its lock and temporary files beside the data file: one made and removed here
  // finds a folder that exists but takes no files (/proc, a read-only mount) as well as a missing one.
  const probe = join(folder, `.animal-store-check-${process.pid}`);
  try {
    mkdirSync(folder, { recursive: true });
    writeFileSync(probe, "");
    rmSync(probe);
    return undefined;
  } catch (error) {
    const file = statSync(folder, { throwIfNoEntry: false })?.isFile() === true;
    const reason = file ? "it is a file, not a folder" : `${(error as NodeJS.ErrnoException).code ?? String(error)}: no file can be made there`;
    return `DATA_FILE "${dataFile}" cannot be kept in ${folder} (${reason}); set DATA_FILE to a file in a folder this user can write`;
  }
}
