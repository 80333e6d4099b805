/**
 * @module
 * `PID_FILE`: the server's process id in a file while it runs, so an operator (or a script) can send
 * it a signal, `kill -HUP "$(cat data/animal-store.pid)"`, without looking for it: `npm start` does
 * not pass SIGHUP on to the server, which is npm's child. Written once the server listens and handles
 * its signals, whole (a temp file renamed into place), and removed at a graceful stop if it still
 * names this process.
 */
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import process from "node:process";

/** Writes this process's id to `path`, replacing whatever was there (a file left by a server killed with -9). */
export async function writePidFile(path: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${process.pid}\n`, { mode: 0o644 });
  await rename(temp, path);
}

/** Removes `path` if it names this process: a server started since keeps its own. */
export async function removePidFile(path: string): Promise<void> {
  const text = await readFile(path, "utf8").catch(() => "");
  if (text.trim() === String(process.pid)) await rm(path, { force: true });
}
