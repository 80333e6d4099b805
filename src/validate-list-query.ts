/**
 * @module
 * The validator for the query of `GET /pets`: `limit`, `status` and the `after` cursor.
 */
import type { PageQuery } from "./store.ts";
import type { PetStatus } from "./pet.ts";
import { isPetStatus } from "./pet.ts";
import type { Validation } from "./validation.ts";
import { describe, invalid, parseCanonicalInteger, statusProblem, valid } from "./validation.ts";

/** The smallest, largest and default page size. */
export const LIMIT = { min: 1, max: 100, default: 20 } as const;

const PARAMETERS = new Set(["limit", "status", "after"]);

/** Checks a list query; every parameter may appear at most once and unknown ones are refused. */
export function validateListQuery(params: URLSearchParams): Validation<PageQuery> {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (!PARAMETERS.has(key)) problems.push(`unknown parameter ${describe(key)}; known are "limit", "status", "after"`);
    else if (seen.has(key)) problems.push(`"${key}" must be given at most once`);
    seen.add(key);
  }
  const limitText = params.get("limit");
  const statusText = params.get("status");
  const afterText = params.get("after");
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
