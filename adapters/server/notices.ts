/**
 * @module
 * The standalone server's own lines (`listening on …`, `opened …`, `stopped`, the data file's
 * warnings), in the access log's format: plain text as ever, or with `LOG_FORMAT=json` one JSON
 * object per line (`time`, `level`, `message`, as the error lines), so that everything the server
 * writes to stdout is JSON Lines a log shipper can read. Information goes to stdout, warnings and
 * errors to stderr. The runtime's own process warnings (the exporter's retry timer set to -1 ms gives
 * Bun and Deno a `TimeoutNegativeWarning`) are written the same way, instead of as the runtime's lines.
 */
import type { LogFormat } from "./access-log.ts";
import type { Output } from "./output.ts";

/** Where the server's own lines go. */
export interface Notices {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Notices in the given format (`"off"`, no access log, writes them as text), on `output`'s streams. */
export function createNotices(format: LogFormat | "off", output: Output): Notices {
  const line = format === "json"
    ? (level: string, message: string) => JSON.stringify({ time: new Date().toISOString(), level, message })
    : (_level: string, message: string) => escapeControls(message);
  return {
    info: (message) => output.out(`${line("info", message)}\n`),
    warn: (message) => output.err(`${line("warn", message)}\n`),
    error: (message) => output.err(`${line("error", message)}\n`),
  };
}

/** Writes each process warning to `notices` as one warning line, and no longer as the runtime prints it. */
export function takeProcessWarnings(notices: Notices): void {
  process.removeAllListeners("warning");
  process.on("warning", (warning) => notices.warn(`animal-store: ${warning.name}: ${warning.message}`));
}

/**
 * `text` with every control character (C0, DEL, C1, and the Unicode line and paragraph separators)
 * written as a JavaScript escape (`\n`, `\r`, `\x1b`, `\u2028`), so that a value echoed into a
 * line (a setting, a file name) can neither start a forged line nor send a terminal escape.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (character) => NAMED_ESCAPES[character] ?? `\\x${character.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const NAMED_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u2028": "\\u2028", "\u2029": "\\u2029" };
