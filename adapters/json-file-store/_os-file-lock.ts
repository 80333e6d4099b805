/**
 * @module
 * The operating system's advisory lock on a file (`flock`), where the runtime offers one: Deno's
 * `FsFile.tryLock`. Bun and Node have none in `node:fs`.
 *
 * The kernel drops the lock when its holder exits, zombie or not, so it tells a dead holder from a
 * live one with no `/proc`, which Deno reads only with `--allow-all`.
 */

/** A lock the kernel holds for this process until `release` or exit. */
export interface OsLock {
  release(): void;
}

/** The part of Deno's API used here, typed locally so `tsc` (without Deno's types) checks this file too. */
interface DenoFiles {
  open(path: string, options: { read: boolean }): Promise<{ tryLock(exclusive: boolean): Promise<boolean>; close(): void }>;
}

/** Whether this runtime can take OS locks on files. */
export function hasOsLocks(): boolean {
  return denoFiles() !== undefined;
}

/** Takes an exclusive OS lock on `path` without waiting: the lock, "busy", or `undefined` on runtimes without OS locks. */
export async function tryOsLock(path: string): Promise<OsLock | "busy" | undefined> {
  const deno = denoFiles();
  if (deno === undefined) return undefined;
  const file = await deno.open(path, { read: true });
  if (await file.tryLock(true)) return { release: () => file.close() };
  file.close();
  return "busy";
}

function denoFiles(): DenoFiles | undefined {
  return (globalThis as { Deno?: DenoFiles }).Deno;
}
