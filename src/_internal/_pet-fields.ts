/**
 * @module
 * Private to the pet validator (`validate-pet.ts`): the checks of `name` and `categoryId`, each
 * giving the problem with a value, or `undefined` when it is fine. Their detail is here, not there:
 * code points against UTF-16 units, control characters, and numbers as the client wrote them.
 */
import { MAX_EXACT_INTEGER, NAME_MAX_LENGTH } from "../pet.ts";
import { describe } from "../validation.ts";
import { hasFractionOrExponent, isIntegerLiteral, topLevelNumberLiterals } from "./_number-literals.ts";

/** The problem with a stored pet's name: missing, not a string, blank, not Unicode text, or too long. */
export function nameProblem(value: unknown): string | undefined {
  if (value === undefined) return '"name" is required';
  if (typeof value !== "string") return `"name" must be a string, got ${describe(value)}`;
  if (value.trim() === "") return '"name" must not be empty or only whitespace';
  if (!value.isWellFormed()) return '"name" must be valid Unicode text (it holds a lone surrogate)';
  // `length` counts UTF-16 units, never fewer than code points: count code points only when it matters.
  if (value.length <= NAME_MAX_LENGTH) return undefined;
  const length = [...value].length;
  return length > NAME_MAX_LENGTH ? `"name" must be at most ${NAME_MAX_LENGTH} characters, got ${length}` : undefined;
}

/**
 * Control characters (Unicode category Cc: U+0000–U+001F, U+007F–U+009F) in a new name: PostgreSQL
 * cannot store U+0000 at all, and the others (line breaks, tabs, terminal escapes) are no part of a
 * name and would reach every client that lists it. Refused on every store, in the same words.
 */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** The problem with a new pet's name: a stored name's, or a control character. */
export function newNameProblem(value: unknown): string | undefined {
  return nameProblem(value) ?? controlCharacterProblem(value as string);
}

function controlCharacterProblem(value: string): string | undefined {
  const found = CONTROL_CHARACTER.exec(value);
  if (found === null) return undefined;
  const codePoint = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  const position = [...value.slice(0, found.index)].length + 1;
  return `"name" must not contain control characters (U+0000 to U+001F, U+007F to U+009F), got U+${codePoint} at character ${position}`;
}

/** The problem with a `categoryId`, judged as written in `text` (the whole body): an exact integer in range. */
export function categoryIdProblem(value: unknown, text: string): string | undefined {
  if (value === undefined) return '"categoryId" is required';
  if (typeof value !== "number") return `"categoryId" must be an integer, got ${describe(value)}`;
  // JSON.parse has already rounded the value: judge the number as the client wrote it. A plain
  // integer literal that parses to a safe integer is exact, so the common case needs no more.
  if (Number.isSafeInteger(value) && !hasFractionOrExponent(text)) return undefined;
  const written = topLevelNumberLiterals(text).get("categoryId") ?? String(value);
  if (!Number.isInteger(value)) return `"categoryId" must be an integer, got ${written}`;
  if (!isIntegerLiteral(written)) {
    return `"categoryId" must be written as a plain integer (no fraction or exponent), got ${written}`;
  }
  if (!Number.isSafeInteger(value)) {
    return `"categoryId" must be between ${-MAX_EXACT_INTEGER} and ${MAX_EXACT_INTEGER}, got ${written}`;
  }
  return undefined;
}
