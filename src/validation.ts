/**
 * @module
 * The result type every validator returns, and small helpers shared by them.
 */
import { PET_STATUSES } from "./pet.ts";

/** A validated value, or every problem found, each naming the field and what was wrong: what every validator answers. */
export type Validation<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: string[] };

/** A value, or the one refusal that stopped it, which carries its own answer (the body reader's 400, 413 or 415). */
export type Refusable<T, Why> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly refusal: Why };

/** A successful validation. */
export function valid<T>(value: T): Validation<T> {
  return { ok: true, value };
}

/** A failed validation with its issues. */
export function invalid<T>(issues: string[]): Validation<T> {
  return { ok: false, issues };
}

/** The problem with a status value that is not one of the pet statuses. */
export function statusProblem(value: unknown): string {
  return `"status" must be one of ${PET_STATUSES.map((status) => `"${status}"`).join(", ")}, got ${describe(value)}`;
}

/** A short, quoted rendering of a value for an error message. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return JSON.stringify(shown);
  }
  return String(value);
}

/** How many issues an error message lists before it only counts the rest. */
export const LISTED_ISSUES = 5;

/** The issues joined for a message: the first few, then how many more, so a huge request cannot make a huge answer. */
export function joinIssues(issues: readonly string[]): string {
  const listed = issues.slice(0, LISTED_ISSUES).join("; ");
  return issues.length <= LISTED_ISSUES ? listed : `${listed}; and ${issues.length - LISTED_ISSUES} more`;
}
