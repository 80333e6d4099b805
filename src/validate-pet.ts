/**
 * @module
 * The pet validators: the body of `POST /pets`, a stored pet record (the same plus its id), each
 * from JSON text to a clean value or every problem found, and a pet id in a path (`PET_ID`, the
 * parameter as the document declares it); then the checks of `name` and `categoryId` (code points
 * against UTF-16 units, control characters, numbers as the client wrote them).
 */
import type { Parameter } from "./operation.ts";
import type { NewPet, Pet, PetStatus } from "./pet.ts";
import { isPetStatus, MAX_EXACT_INTEGER, NAME_MAX_LENGTH, withId } from "./pet.ts";
import { hasFractionOrExponent, isIntegerLiteral, parseCanonicalInteger, topLevelNumberLiterals } from "./_internal/_number-literals.ts";
import type { Validation } from "./validation.ts";
import { describe, invalid, statusProblem, valid } from "./validation.ts";

const NEW_PET_FIELDS: readonly string[] = ["name", "categoryId", "status"];
/** The members of a stored pet record. */
export const STORED_PET_FIELDS: readonly string[] = ["id", ...NEW_PET_FIELDS];

/** Parses and checks a create-pet body; the value holds only the known fields. */
export function validateNewPet(text: string): Validation<NewPet> {
  if (text.trim() === "") {
    return invalid(['body is empty; send a JSON object with "name" and "categoryId"']);
  }
  const body = parseObject(text, "body");
  if (!body.ok) return body;
  return checkFields(body.value, text, NEW_PET_FIELDS, [], newNameProblem);
}

/**
 * Parses and checks a stored pet record: a new pet's fields plus a positive integer `id`. A store
 * that keeps more in a record (say, an idempotency key) names all its members in `known`. A name
 * may hold control characters here: earlier versions stored them, and a data file must still load.
 */
export function validateStoredPet(text: string, known: readonly string[] = STORED_PET_FIELDS): Validation<Pet> {
  const record = parseObject(text, "record");
  if (!record.ok) return record;
  const id = record.value["id"];
  const idProblems = typeof id === "number" && Number.isSafeInteger(id) && id > 0
    ? []
    : [`"id" must be a positive integer, got ${describe(id)}`];
  const pet = checkFields(record.value, text, known, idProblems, nameProblem);
  return pet.ok ? valid(withId(id as number, pet.value)) : pet;
}

/** A pet id as a path holds it (`petId`, still percent-encoded): a positive integer in plain decimal, or the problem. */
export function validatePetId(text: string): Validation<number> {
  const id = parseCanonicalInteger(text);
  if (id !== undefined && id > 0) return valid(id);
  return invalid([`"petId" must be a positive integer up to ${MAX_EXACT_INTEGER} without leading zeros, got ${describe(text)}`]);
}

/** The `petId` of a pet's path, `/pets/{petId}`, as every operation on that path reads it. */
export const PET_ID: Parameter<number> = {
  name: "petId",
  in: "path",
  required: true,
  description:
    "A pet id: an integer from 1 to 9007199254740991, written in plain decimal (no sign, no leading zero; see x-request-rules integer-spelling).",
  schema: { type: "integer", format: "int64", minimum: 1, maximum: MAX_EXACT_INTEGER, examples: [1] },
  read: (text) => validatePetId(text ?? ""),
};

function parseObject(text: string, what: string): Validation<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The runtime's own parser text differs between Bun, Deno and Node: say it in one way.
    return invalid([`${what} is not valid JSON`]);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return invalid([`${what} must be a JSON object, got ${describe(value)}`]);
  }
  return valid(value as Record<string, unknown>);
}

/** Checks the new-pet fields of an object, refusing fields not in `known`; `problems` come first. */
function checkFields(
  fields: Record<string, unknown>,
  text: string,
  known: readonly string[],
  problems: readonly string[],
  checkName: (value: unknown) => string | undefined,
): Validation<NewPet> {
  const all = [...problems];
  for (const key in fields) if (!known.includes(key)) all.push(unknownFieldProblem(key));
  const fieldProblems = [checkName(fields["name"]), categoryIdProblem(fields["categoryId"], text), statusFieldProblem(fields["status"])];
  for (const problem of fieldProblems) if (problem !== undefined) all.push(problem);
  if (all.length > 0) return invalid(all);

  const name = fields["name"] as string;
  const categoryId = fields["categoryId"] as number;
  const status = fields["status"] as PetStatus | undefined;
  return valid(status === undefined ? { name, categoryId } : { name, categoryId, status });
}

function unknownFieldProblem(key: string): string {
  return key === "id" ? '"id" is assigned by the service and must not be sent' : `unknown field ${JSON.stringify(key)}`;
}

function statusFieldProblem(value: unknown): string | undefined {
  return value === undefined || isPetStatus(value) ? undefined : statusProblem(value);
}

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
