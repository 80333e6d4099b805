/**
 * @module
 * `GET /pets/{petId}` (getPet, deprecated): one pet by id.
 */
import type { Context } from "./context.ts";
import type { Reply } from "./reply.ts";
import { errorReply } from "./errors.ts";
import { MAX_EXACT_INTEGER } from "./pet.ts";
import { petJson } from "./pet-json.ts";
import { jsonTextReply } from "./reply.ts";
import { describe, parseCanonicalInteger } from "./validation.ts";

/** Answers `GET /pets/{petId}`: 200 with the pet, 400 for an id that is not one, 404 for no such pet. */
export async function getPet(context: Context): Promise<Reply> {
  const text = context.params["petId"] ?? "";
  const id = parseCanonicalInteger(text);
  if (id === undefined || id === 0) {
    return errorReply(
      "invalid_path",
      `Cannot get pet: "petId" must be a positive integer up to ${MAX_EXACT_INTEGER} without leading zeros, got ${describe(text)}`,
    );
  }
  const pet = await context.store.get(id);
  if (pet === undefined) return errorReply("not_found", `Cannot get pet: no pet has id ${id}`);
  return jsonTextReply(200, petJson(pet));
}
