/**
 * @module
 * The server's key file, `API_KEYS_FILE`: read at start and again on SIGHUP. The file gets the checks
 * of the server's own secrets (`_files/secret-file.ts`: a regular file, no link, FIFO or device, that
 * no other user may read or change) with a bound of 32 MiB (100,000 keys take about 10 MiB), must not
 * change while it is read (nor, written less than 100 ms before, for 100 ms after), must be UTF-8, and
 * is parsed as `src/api-keys/key-file.ts` says. A problem
 * stops the start (exit 2); at a reload the keys in use stay and one line says why.
 */
import type { KeyList, KeyRing, Validation } from "../../src/mod.ts";
import type { Notices } from "./notices.ts";
import { dirname, resolve } from "node:path";
import { parseKeyFile } from "../../src/mod.ts";
import { openChecked } from "../_files/secret-file.ts";
import { errorCode } from "../_files/error-code.ts";

/** The largest key file: room for 100,000 keys of long names, scopes, expiries and comments. */
export const MAX_KEY_FILE_BYTES: number = 32 * 1024 * 1024;

/** How long a key file written a moment before it is read must then stay as it was, to be taken. */
const SETTLE_MS = 100;

/** How many of a reload's problems its one line names. */
const PROBLEMS_IN_A_LINE = 3;

/** The key file's keys, ready for the ring, or its problems, each naming its line where it has one (`line 3: …`). */
export async function readKeyFile(path: string): Promise<Validation<KeyList>> {
  const bytes = await readWhole(path);
  return typeof bytes === "string" ? { ok: false, issues: [bytes] } : parseKeyFile(bytes);
}

/** Why a file cannot be read because Deno was not given it (`NotCapable`), naming the flag to add; `undefined` for any other failure. */
export function capabilityProblem(error: unknown, path: string): string | undefined {
  if ((error as Error | undefined)?.name !== "NotCapable") return undefined;
  const folder = dirname(resolve(path));
  return `it is in ${folder}, which this Deno server may not read (NotCapable); keep it under data/, or give Deno --allow-read=${folder}`;
}

/**
 * What SIGHUP does with a key file: reads it and replaces the ring's keys, saying in one line what was
 * added, removed and kept, or why the keys in use stay. Signals that come while a reload runs make
 * one more, after it: a hundred a second read the file a few times, never at once.
 */
export function keyReloader(path: string, keys: KeyRing, notices: Notices): () => void {
  let running = false;
  let again = false;
  async function reload(): Promise<void> {
    const read = await readKeyFile(path);
    if (!read.ok) return notices.error(notReloaded(path, keys, read.issues));
    try {
      const { added, removed, kept, changed } = keys.replace(read.value);
      notices.info(`reloaded API_KEYS_FILE "${path}": ${added} added, ${removed} removed, ${kept} kept (${changed} of them changed)`);
    } catch (error) {
      notices.error(notReloaded(path, keys, [error instanceof Error ? error.message : String(error)]));
    }
  }
  return () => {
    if (running) return void (again = true);
    running = true;
    void (async () => {
      do {
        again = false;
        await reload().catch((error: unknown) => notices.error(notReloaded(path, keys, [String(error)])));
      } while (again);
      running = false;
    })();
  };
}

/** The one line of a reload that failed: the file, that the keys in use stay, and its first problems. */
function notReloaded(path: string, keys: KeyRing, problems: readonly string[]): string {
  const named = problems.slice(0, PROBLEMS_IN_A_LINE).join("; ");
  const more = problems.length > PROBLEMS_IN_A_LINE ? `; and ${problems.length - PROBLEMS_IN_A_LINE} more` : "";
  const inUse = keys.size === 1 ? "the 1 key in use stays" : `the ${keys.size} keys in use stay`;
  return `animal-store: API_KEYS_FILE "${path}" not reloaded, ${inUse}: ${named}${more}`;
}

/** The file's bytes, read once it passed its checks and only if it did not change meanwhile; or what is wrong. */
async function readWhole(path: string): Promise<Uint8Array | string> {
  let opened: Awaited<ReturnType<typeof openChecked>>;
  try {
    opened = await openChecked(path, { ownerOnly: true, maxBytes: MAX_KEY_FILE_BYTES });
  } catch (error) {
    return capabilityProblem(error, path) ?? `it cannot be opened (${errorCode(error) ?? String(error)})`;
  }
  if (opened.kind === "missing") return "there is no such file";
  if (opened.kind === "unusable") return opened.problem;
  const { handle, stats } = opened;
  try {
    const bytes = new Uint8Array(Math.min(stats.size, MAX_KEY_FILE_BYTES) + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < bytes.length;) length += read = (await handle.read(bytes, length, bytes.length - length, length)).bytesRead;
    // A writer between the look and the end of the read, or, for a file written a moment ago, in the
    // moment after: a file written in place in several writes (cp, an editor) may be read between two.
    if (Date.now() - stats.mtimeMs < SETTLE_MS) await new Promise((settled) => setTimeout(settled, SETTLE_MS));
    const after = await handle.stat();
    // Its bytes, not its links: a new file renamed over this one (what the refusal below asks for)
    // changes this one's ctime as its last link goes, and leaves what was read whole.
    if (length !== stats.size || after.size !== stats.size || after.mtimeMs !== stats.mtimeMs) {
      return "it changed while it was read; write a new file beside it and rename it into place (mv), which is never seen half written";
    }
    return bytes.subarray(0, length);
  } finally {
    await handle.close();
  }
}
