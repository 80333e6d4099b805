/**
 * @module
 * The validator for the body of `POST /pets`: JSON text in, a clean `NewPet` or every problem out.
 */
import type { NewPet, PetStatus } from "./pet.ts";
import { isPetStatus, MAX_EXACT_INTEGER, NAME_MAX_LENGTH, PET_STATUSES } from "./pet.ts";
import { topLevelNumberLiterals } from "./number-literals.ts";
import type { Validation } from "./validation.ts";
import { describe, invalid, valid } from "./validation.ts";

const FIELDS = new Set(["name", "categoryId", "status"]);
const INTEGER_LITERAL = /^-?(0|[1-9][0-9]*)$/;
const STATUS_LIST = PET_STATUSES.map((status) => `"${status}"`).join(", ");

/** Parses and checks a create-pet body; the value holds only the known fields. */
export function validateNewPet(text: string): Validation<NewPet> {
  if (text.trim() === "") {
    return invalid(['body is empty; send a JSON object with "name" and "categoryId"']);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return invalid([`body is not valid JSON (${(error as Error).message})`]);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return invalid([`body must be a JSON object, got ${describe(body)}`]);
  }
  const fields = body as Record<string, unknown>;
  const problems = [
    ...Object.keys(fields).filter((key) => !FIELDS.has(key)).map(unknownFieldProblem),
    nameProblem(fields["name"]),
    categoryIdProblem(fields["categoryId"], text),
    statusProblem(fields["status"]),
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) return invalid(problems);

  const name = fields["name"] as string;
  const categoryId = fields["categoryId"] as number;
  const status = fields["status"] as PetStatus | undefined;
  return valid(status === undefined ? { name, categoryId } : { name, categoryId, status });
}

function unknownFieldProblem(key: string): string {
  return key === "id" ? '"id" is assigned by the service and must not be sent' : `unknown field ${JSON.stringify(key)}`;
}

function nameProblem(value: unknown): string | undefined {
  if (value === undefined) return '"name" is required';
  if (typeof value !== "string") return `"name" must be a string, got ${describe(value)}`;
  if (value.trim() === "") return '"name" must not be empty or only whitespace';
  if (!value.isWellFormed()) return '"name" must be valid Unicode text (it holds a lone surrogate)';
  // `length` counts UTF-16 units, never fewer than code points: count code points only when it matters.
  if (value.length <= NAME_MAX_LENGTH) return undefined;
  const length = [...value].length;
  return length > NAME_MAX_LENGTH ? `"name" must be at most ${NAME_MAX_LENGTH} characters, got ${length}` : undefined;
}

function categoryIdProblem(value: unknown, text: string): string | undefined {
  if (value === undefined) return '"categoryId" is required';
  if (typeof value !== "number") return `"categoryId" must be an integer, got ${describe(value)}`;
  // JSON.parse has already rounded the value: judge the number as the client wrote it.
  const written = topLevelNumberLiterals(text).get("categoryId") ?? String(value);
  if (!Number.isInteger(value)) return `"categoryId" must be an integer, got ${written}`;
  if (!INTEGER_LITERAL.test(written)) {
    return `"categoryId" must be written as a plain integer (no fraction or exponent), got ${written}`;
  }
  if (!Number.isSafeInteger(value)) {
    return `"categoryId" must be between ${-MAX_EXACT_INTEGER} and ${MAX_EXACT_INTEGER}, got ${written}`;
  }
  return undefined;
}

function statusProblem(value: unknown): string | undefined {
  if (value === undefined || isPetStatus(value)) return undefined;
  return `"status" must be one of ${STATUS_LIST}, got ${describe(value)}`;
}
