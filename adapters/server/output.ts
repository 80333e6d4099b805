/**
 * @module
 * The standalone server's stdout and stderr, which a reader going away never stops: `animal-store |
 * head -5`, a `tee` or a log shipper that exits or restarts closes the pipe, and the next write fails
 * with `EPIPE`, which every runtime reports as an `error` event that ends the process unless handled.
 * Here the first failure marks the stream gone (a closed stdout is said once on stderr, if that one
 * still works); from then on its lines are not written but counted, for
 * `animal_store_log_lines_dropped_total`. The server goes on serving, and a graceful stop still exits 0.
 */
import process from "node:process";

/** The two streams the server writes its lines to. */
export interface Output {
  /** Writes lines (each ending in a newline) to stdout, or counts them as dropped once it is gone. */
  out(text: string): void;
  /** Writes lines (each ending in a newline) to stderr, or counts them as dropped once it is gone. */
  err(text: string): void;
  /** How many lines could not be written since the start. */
  dropped(): number;
}

/** A stream as the runtimes' `process.stdout` and `process.stderr` have it. */
interface Stream {
  write(text: string, done: (error?: Error | null) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** The process's stdout and stderr. */
export function createOutput(stdout: Stream = process.stdout, stderr: Stream = process.stderr): Output {
  let dropped = 0;
  const gone = { stdout: false, stderr: false };
  const writer = (name: keyof typeof gone, stream: Stream) => {
    const lost = (error: Error, lines: number) => {
      dropped += lines;
      if (gone[name]) return;
      gone[name] = true;
      const code = (error as { code?: unknown }).code ?? error.message;
      if (name === "stdout" && !gone.stderr) stderr.write(`animal-store: ${name} is closed (${String(code)}); its lines are dropped from now on and counted in animal_store_log_lines_dropped_total\n`, () => {});
    };
    // The event comes with the failed write's own callback; the callback counts, this keeps the process alive.
    stream.on("error", (error) => lost(error, 0));
    return (text: string) => {
      if (gone[name]) return void (dropped += countLines(text));
      stream.write(text, (error) => {
        // Counted only when lost: every write would otherwise scan its text.
        if (error) lost(error, countLines(text));
      });
    };
  };
  const out = writer("stdout", stdout);
  const err = writer("stderr", stderr);
  return { out, err, dropped: () => dropped };
}

function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}
