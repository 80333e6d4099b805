/**
 * @module
 * Private to the access log: the numbers of a line written without converting a fraction. A
 * duration's milliseconds (three decimals at most) printed by the runtime go through the
 * shortest-round-trip conversion of a double, each line a new value; here they are an integer and
 * a fraction's text from a table of 1,000, the same characters. A request id's counter is hex
 * from a table of 256 pairs rather than `toString(16)` and `padStart` (0.06–0.08 µs against
 * 0.11–0.12). With the batch's lines built as one string: 2–5% more getPets side by side on Bun and
 * Node, 0.3 µs less a request in-process (`bench/RESULTS.md`, "Issue 53, second round").
 */

// ".001" … ".999" with their trailing zeros dropped, as a number prints them; "" for none.
const FRACTIONS: readonly string[] = Array.from({ length: 1000 }, (_, thousandths) => (thousandths === 0 ? "" : `.${String(thousandths).padStart(3, "0")}`.replace(/0+$/, "")));

// Within this a double holds every thousandth exactly enough to round back to it.
const LARGEST_MICROS = 2 ** 42;

/** `ms` as `String(ms)` prints it, cheaper for a non-negative number of whole microseconds (every duration the log records). */
export function millisecondsText(ms: number): string {
  const micros = Math.round(ms * 1000);
  if (!(micros >= 0 && micros < LARGEST_MICROS) || micros / 1000 !== ms) return String(ms);
  const whole = Math.floor(micros / 1000);
  return `${whole}${FRACTIONS[micros - whole * 1000]}`;
}

/** Each byte's two lowercase hex digits, by its value: the log's ids and the span recorder's. */
export const HEX_PAIRS: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** A counter from 1 as lowercase hex, 12 digits at least: `(++count).toString(16).padStart(12, "0")`. */
export function createHexCounter(): () => string {
  let count = 0;
  // The digits above the low 24 bits change once in 16,777,216 counts: kept as text between.
  let high = "000000";
  return () => {
    const low = ++count % 0x1000000;
    if (low === 0) high = Math.floor(count / 0x1000000).toString(16).padStart(6, "0");
    return `${high}${HEX_PAIRS[low >>> 16]}${HEX_PAIRS[(low >>> 8) & 0xff]}${HEX_PAIRS[low & 0xff]}`;
  };
}
