/**
 * @module
 * Private to the OpenAPI document: a regular expression for the integers of a range as the service
 * reads them in paths and queries, plain decimal with no sign, no leading zero and no spaces, so a
 * tool that reads only the document refuses `+5`, `05` and `5 ` as the service does.
 */

/**
 * A pattern (ECMA-262, anchored) that matches exactly the plain decimal spellings of the integers
 * from `min` (0 or 1) to `max` (a safe integer of at least 1).
 */
export function decimalRangePattern(min: 0 | 1, max: number): string {
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`Cannot make pattern: max must be a safe integer of at least 1, got ${max}`);
  const digits = String(max);
  const shorter = digits.length === 1 ? [] : digits.length === 2 ? ["[1-9]"] : [`[1-9][0-9]{0,${digits.length - 2}}`];
  const alternatives = [...(min === 0 ? ["0"] : []), ...shorter, ...sameLengthAtMost(digits)];
  return `^(?:${alternatives.join("|")})$`;
}

/** Alternatives matching the numbers with as many digits as `digits` and at most its value. */
function sameLengthAtMost(digits: string): string[] {
  const alternatives: string[] = [];
  for (let i = 0; i < digits.length; i++) {
    const lowest = i === 0 ? 1 : 0;
    const below = Number(digits[i]) - 1;
    if (below < lowest) continue;
    const rest = digits.length - i - 1;
    const digit = below === lowest ? String(lowest) : `[${lowest}-${below}]`;
    alternatives.push(`${digits.slice(0, i)}${digit}${rest === 0 ? "" : rest === 1 ? "[0-9]" : `[0-9]{${rest}}`}`);
  }
  alternatives.push(digits);
  return alternatives;
}
