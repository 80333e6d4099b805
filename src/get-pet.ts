/**
 * @module
 * `GET /pets/{petId}` (getPet, deprecated): one pet by id.
 */
import type { Context } from "./context.ts";
import { validatePetId } from "./validate-pet.ts";
import { joinIssues } from "./validation.ts";

/**
 * Answers `GET /pets/{petId}`: 200 with the pet and its `ETag` (a pet never changes), 304 when the
 * client holds it already, 400 for an id that is not one, 404 for no such pet.
 */
export async function getPet(context: Context): Promise<Response> {
  const id = validatePetId(context.params["petId"] ?? "");
  if (!id.ok) return context.error("invalid_path", `Cannot get pet: ${joinIssues(id.issues)}`);
  const pet = await context.store.get(id.value);
  if (pet === undefined) return context.error("not_found", `Cannot get pet: no pet has id ${id.value}`);
  return context.tagged(context.petJson(pet));
}
