/**
 * @module
 * `GET /pets/{petId}` (getPet, deprecated): one pet by id.
 */
import type { Context } from "./context.ts";
import { errorResponse } from "./errors.ts";
import { taggedJsonResponse } from "./etag.ts";
import { MAX_EXACT_INTEGER } from "./pet.ts";
import { describe, parseCanonicalInteger } from "./validation.ts";

/**
 * Answers `GET /pets/{petId}`: 200 with the pet and its `ETag` (a pet never changes), 304 when the
 * client holds it already, 400 for an id that is not one, 404 for no such pet.
 */
export async function getPet(context: Context): Promise<Response> {
  const { headers } = context; // the deprecation headers, on every answer
  const text = context.params["petId"] ?? "";
  const id = parseCanonicalInteger(text);
  if (id === undefined || id === 0) {
    return errorResponse(
      "invalid_path",
      `Cannot get pet: "petId" must be a positive integer up to ${MAX_EXACT_INTEGER} without leading zeros, got ${describe(text)}`,
      headers,
    );
  }
  const pet = await context.store.get(id);
  if (pet === undefined) return errorResponse("not_found", `Cannot get pet: no pet has id ${id}`, headers);
  return taggedJsonResponse(context.request, context.texts.pet(pet), context.texts, headers);
}
