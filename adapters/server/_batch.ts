/**
 * @module
 * Private to the access log: things kept and handed on together, once 64 wait or 10 ms after the
 * first of them, whichever comes first, as pino's buffered destination does with its lines.
 *
 * The log keeps what it learns of each answer and makes and writes the lines of a batch at once:
 * a write per line was a system call per request, and making the lines together rather than each as
 * its request is answered gave a Bun getPet 3–11% more throughput (`bench/RESULTS.md`, "Issue 24,
 * second session"). Nothing is lost at a graceful stop, which calls `flush` before the process exits;
 * a crash loses what waits, at most 64 items or the last 10 ms.
 */

/** Things waiting to be handed on. */
export interface Batch<T> {
  /** Adds one. */
  push(item: T): void;
  /** Hands on every waiting one now. */
  flush(): void;
}

/** At this many waiting, they are handed on at once. */
const FLUSH_AT = 64;

/** The longest one waits. */
const FLUSH_AFTER_MS = 10;

/** A batch handing its items, in the order pushed, to `handOn`. */
export function createBatch<T>(handOn: (items: readonly T[]) => void): Batch<T> {
  let waiting: T[] = [];
  // One timer while items keep coming, stopped by a tick that finds none. A timeout per batch, its
  // flag cleared by whichever fired or filled first, left timeouts pending beside the new one after
  // every full batch: after bursts they fired a millisecond apart, handing items on one or two at a time.
  let ticking: ReturnType<typeof setInterval> | undefined;
  function tick(): void {
    if (waiting.length > 0) return flush();
    clearInterval(ticking);
    ticking = undefined;
  }
  function flush(): void {
    if (waiting.length === 0) return;
    const items = waiting;
    waiting = [];
    handOn(items);
  }
  function push(item: T): void {
    waiting.push(item);
    if (waiting.length >= FLUSH_AT) flush();
    else ticking ??= setInterval(tick, FLUSH_AFTER_MS);
  }
  return { push, flush };
}
