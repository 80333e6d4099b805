/**
 * @module
 * The validator for the query of `GET /pets`: `limit`, `status` and the `after` cursor.
 */
import type { PageQuery } from "./store.ts";
import type { PetStatus } from "./pet.ts";
import { isPetStatus } from "./pet.ts";
import type { Validation } from "./validation.ts";
import { parseCanonicalInteger } from "./_internal/_number-literals.ts";
import { parseQuery } from "./_internal/_query-string.ts";
import { describe, invalid, statusProblem, valid } from "./validation.ts";

/** The smallest, largest and default page size. */
export const LIMIT = { min: 1, max: 100, default: 20 } as const;

const PARAMETERS: readonly string[] = ["limit", "status", "after"];

/** Checks a list query string (without `?`); every parameter may appear at most once and unknown ones are refused. */
export function validateListQuery(queryString: string): Validation<PageQuery> {
  const problems: string[] = [];
  const given = new Map<string, string>();
  for (const [name, value] of parseQuery(queryString)) {
    if (!PARAMETERS.includes(name)) problems.push(`unknown parameter ${describe(name)}; known are "limit", "status", "after"`);
    else if (given.has(name)) problems.push(`"${name}" must be given at most once`);
    else given.set(name, value);
  }
  const limitText = given.get("limit") ?? null;
  const statusText = given.get("status") ?? null;
  const afterText = given.get("after") ?? null;
  const limit = limitText === null ? LIMIT.default : parseCanonicalInteger(limitText);
  const after = afterText === null ? 0 : parseCanonicalInteger(afterText);

  if (limit === undefined || limit < LIMIT.min || limit > LIMIT.max) {
    problems.push(`"limit" must be an integer from ${LIMIT.min} to ${LIMIT.max}, got ${describe(limitText)}`);
  }
  let status: PetStatus | undefined;
  if (statusText !== null) {
    if (isPetStatus(statusText)) status = statusText;
    else problems.push(statusProblem(statusText));
  }
  if (after === undefined) {
    problems.push(`"after" must be a pet id (an integer of 0 or more), got ${describe(afterText)}`);
  }
  if (problems.length > 0 || limit === undefined || after === undefined) return invalid(problems);
  return valid(status === undefined ? { limit, after } : { limit, after, status });
}
