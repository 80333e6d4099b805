/**
 * @module
 * The pet validators: the body of `POST /pets`, and a stored pet record (the same plus its id), each
 * from JSON text to a clean value or every problem found. How `name` and `categoryId` are judged
 * (code points, control characters, numbers as written) is in `_internal/_pet-fields.ts`.
 */
import type { NewPet, Pet, PetStatus } from "./pet.ts";
import { isPetStatus, withId } from "./pet.ts";
import { categoryIdProblem, nameProblem, newNameProblem } from "./_internal/_pet-fields.ts";
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
