/**
 * @module
 * `POST /pets` (createPet): validates the body, stores the pet, answers 201 with its `Location`.
 */
import type { Context } from "./context.ts";
import { errorResponse } from "./errors.ts";
import { jsonResponse } from "./json-response.ts";
import { readJsonBody } from "./read-body.ts";
import { validateNewPet } from "./validate-pet.ts";
import { joinIssues } from "./validation.ts";

const ACTION = "Cannot create pet";

/** Answers `POST /pets`: 201 with the stored pet, or 400/413/415 naming what was wrong. */
export async function createPet(context: Context): Promise<Response> {
  const body = await readJsonBody(context.request, context.maxBodyBytes, ACTION);
  if (!body.ok) return body.issues; // the 400, 413 or 415 that refuses the body
  const pet = validateNewPet(body.value);
  if (!pet.ok) return errorResponse("invalid_body", `${ACTION}: ${joinIssues(pet.issues)}`);
  const stored = await context.store.create(pet.value);
  // Written afresh rather than remembered: a new pet is rarely asked for again at once, and
  // remembering every created pet would evict the pets that pages are made of.
  return jsonResponse(201, JSON.stringify(stored), { location: `${context.baseUrl}/pets/${stored.id}` });
}
