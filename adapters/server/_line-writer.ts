/**
 * @module
 * Private to the access log: lines gathered and written together, once 8 KiB wait or 10 ms after
 * the first of them, whichever comes first, as pino's buffered destination does. One write for many
 * lines is what makes a log on by default cheap: a write per line was a system call per request,
 * and a write per event-loop turn still one per two or three requests under load (`bun --cpu-prof`:
 * 6% of a getPet's JavaScript samples).
 *
 * Lines are whole when written (a line is never split across writes) and none is lost at a
 * graceful stop, which calls `flush` before the process exits.
 */

/** Lines waiting to be written. */
export interface LineWriter {
  /** Adds a line (without its newline). */
  push(line: string): void;
  /** Writes every waiting line now. */
  flush(): void;
}

/** Past this many characters waiting, the lines are written at once. */
const FLUSH_AT = 8192;

/** The longest a line waits to be written. */
const FLUSH_AFTER_MS = 10;

/** A writer handing its lines, newline-terminated and joined, to `write`. */
export function createLineWriter(write: (text: string) => void): LineWriter {
  let waiting = "";
  let scheduled = false;
  function flush(): void {
    scheduled = false;
    if (waiting === "") return;
    const text = waiting;
    waiting = "";
    write(text);
  }
  function push(line: string): void {
    waiting += `${line}\n`;
    if (waiting.length >= FLUSH_AT) flush();
    else if (!scheduled) {
      scheduled = true;
      setTimeout(flush, FLUSH_AFTER_MS);
    }
  }
  return { push, flush };
}
