/**
 * @module
 * Private to the validators: integers in plain decimal, and how the top-level numbers of a JSON
 * object were written.
 *
 * `JSON.parse` silently rounds: `9007199254740991.4` and `1.0000000000000001` both come back as
 * integers. Validators that must never round look at the written form too.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const MINUS = 0x2d;

const INTEGER_LITERAL = /^-?(0|[1-9][0-9]*)$/;

/** Whether `text` is an integer in plain decimal: an optional minus, no leading zero, no fraction or exponent. */
export function isIntegerLiteral(text: string): boolean {
  return INTEGER_LITERAL.test(text);
}

/**
 * The non-negative integer that `text` spells in plain decimal (no sign, no leading zero), or
 * `undefined` when it spells anything else or a number too large to hold exactly.
 */
export function parseCanonicalInteger(text: string): number | undefined {
  if (text.startsWith("-") || !isIntegerLiteral(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * The source text of each number-valued member of the top-level object in `json`, by member name
 * (the last one wins, as in `JSON.parse`). `json` must already be known to be a valid JSON object.
 */
export function topLevelNumberLiterals(json: string): Map<string, string> {
  const literals = new Map<string, string>();
  let depth = 0;
  let expectingName = false;
  let name = "";
  let i = 0;
  while (i < json.length) {
    const code = json.charCodeAt(i);
    if (code === QUOTE) {
      const end = endOfString(json, i);
      if (depth === 1 && expectingName) {
        name = readName(json, i, end);
        expectingName = false;
      }
      i = end;
    } else if (depth === 1 && !expectingName && (code === MINUS || isDigit(code))) {
      const start = i;
      while (i < json.length && isNumberCharacter(json.charCodeAt(i))) i++;
      literals.set(name, json.slice(start, i));
    } else {
      if (code === 0x7b || code === 0x5b) depth++; // { [
      else if (code === 0x7d || code === 0x5d) depth--; // } ]
      if (depth === 1 && (code === 0x7b || code === COMMA)) expectingName = true;
      i++;
    }
  }
  return literals;
}

/**
 * Whether any number in `json` is written with a fraction or an exponent. Outside strings a `.`
 * only occurs in a number, and an `e` or `E` after a digit is an exponent (in `true` and `false` it
 * follows a letter). When this is false, every number is a plain integer literal.
 */
export function hasFractionOrExponent(json: string): boolean {
  let i = 0;
  while (i < json.length) {
    const code = json.charCodeAt(i);
    if (code === QUOTE) i = endOfString(json, i);
    else if (code === 0x2e || ((code === 0x65 || code === 0x45) && isDigit(json.charCodeAt(i - 1)))) return true;
    else i++;
  }
  return false;
}

/** The index just past the string literal that starts at `start`. */
function endOfString(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length && json.charCodeAt(i) !== QUOTE) i += json.charCodeAt(i) === BACKSLASH ? 2 : 1;
  return i + 1;
}

/** The value of the string literal at [start, end): sliced when plain, decoded when it has escapes. */
function readName(json: string, start: number, end: number): string {
  const raw = json.slice(start + 1, end - 1);
  return raw.includes("\\") ? (JSON.parse(json.slice(start, end)) as string) : raw;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Digits, sign, decimal point and exponent: every character a JSON number can hold. */
function isNumberCharacter(code: number): boolean {
  return isDigit(code) || code === MINUS || code === 0x2b || code === 0x2e || code === 0x65 || code === 0x45;
}
