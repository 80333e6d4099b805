/**
 * @module
 * Private to the access log: lines gathered and written together, once per event-loop turn or
 * every 64 KiB, whichever comes first, as srvx's logger and pino do. One write for many lines is
 * what makes a log on by default cheap: a write per line was a system call per request.
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

/** Past this many characters waiting, the lines are written at once rather than at the end of the turn. */
const FLUSH_AT = 65536;

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
      setTimeout(flush, 0);
    }
  }
  return { push, flush };
}
