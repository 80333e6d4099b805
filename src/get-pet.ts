/**
 * @module
 * `GET /pets/{petId}` (getPet, deprecated): one pet by id.
 */
import type { Context } from "./context.ts";
import { MAX_EXACT_INTEGER } from "./pet.ts";
import { parseCanonicalInteger } from "./_internal/_number-literals.ts";
import { describe } from "./validation.ts";

/**
 * Answers `GET /pets/{petId}`: 200 with the pet and its `ETag` (a pet never changes), 304 when the
 * client holds it already, 400 for an id that is not one, 404 for no such pet.
 */
export async function getPet(context: Context): Promise<Response> {
  const text = context.params["petId"] ?? "";
  const id = parseCanonicalInteger(text);
  if (id === undefined || id === 0) {
    return context.error(
      "invalid_path",
      `Cannot get pet: "petId" must be a positive integer up to ${MAX_EXACT_INTEGER} without leading zeros, got ${describe(text)}`,
    );
  }
  const pet = await context.store.get(id);
  if (pet === undefined) return context.error("not_found", `Cannot get pet: no pet has id ${id}`);
  return context.unchanging(context.petJson(pet));
}
