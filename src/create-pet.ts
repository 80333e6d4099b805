/**
 * @module
 * `POST /pets` (createPet): validates the body, stores the pet, answers 201 with its `Location`.
 * With an `Idempotency-Key`, a retry answers the first create's 201 instead of storing a second pet.
 */
import type { Context } from "./context.ts";
import type { NewPet, Pet } from "./pet.ts";
import type { KeyedCreate } from "./store.ts";
import { readIdempotencyKey, REPLAY_HEADER } from "./idempotency.ts";
import { readJsonBody } from "./read-body.ts";
import { validateNewPet } from "./validate-pet.ts";
import { joinIssues } from "./validation.ts";

const ACTION = "Cannot create pet";

/** Answers `POST /pets`: 201 with the stored pet, or 400/409/413/415/422 naming what was wrong. */
export async function createPet(context: Context): Promise<Response> {
  const key = readIdempotencyKey(context.request.headers.get("idempotency-key"));
  if (!key.ok) return context.error("invalid_header", `${ACTION}: ${key.issues.join("; ")}`);
  const body = await readJsonBody(context.request, context.maxBodyBytes, ACTION);
  if (!body.ok) return context.error(body.refusal.code, body.refusal.message, body.refusal.headers); // 400, 413 or 415
  const pet = validateNewPet(body.value);
  if (!pet.ok) return context.error("invalid_body", `${ACTION}: ${joinIssues(pet.issues)}`);
  if (key.value === undefined) return created(context, await context.store.create(pet.value), false);
  return await createOnce(context, pet.value, key.value);
}

/** Creates a pet under an idempotency key: the first request stores it, a retry gets the same answer. */
async function createOnce(context: Context, pet: NewPet, keyText: string): Promise<Response> {
  const { store, idempotency } = context;
  if (store.createWithKey === undefined) {
    return context.error("not_implemented", `${ACTION}: this server's store keeps no idempotency keys; send the create without "Idempotency-Key"`);
  }
  const key = await idempotency.scope(context.request.headers.get("authorization"), keyText);
  if (!idempotency.startAnswering(key)) {
    return context.error(
      "idempotency_key_in_use",
      `${ACTION}: a request with this Idempotency-Key is still being answered; retry once it is answered`,
      { "retry-after": "1" },
    );
  }
  let outcome: KeyedCreate;
  try {
    outcome = await store.createWithKey(pet, key);
  } finally {
    idempotency.doneAnswering(key);
  }
  if (outcome.replayed && !samePet(outcome.pet, pet)) {
    return context.error(
      "idempotency_key_reused",
      `${ACTION}: this Idempotency-Key already created pet ${outcome.pet.id} from a different body; use a new key for a new pet`,
    );
  }
  return created(context, outcome.pet, outcome.replayed);
}

/** The 201 for a stored pet; a replay says so in a header. */
function created(context: Context, pet: Pet, replayed: boolean): Response {
  const headers: Record<string, string> = { location: `${context.baseUrl}/pets/${pet.id}` };
  if (replayed) headers[REPLAY_HEADER] = "true";
  // Written afresh rather than remembered: a new pet is rarely asked for again at once, and
  // remembering every created pet would evict the pets that pages are made of.
  return context.json(201, JSON.stringify(pet), headers);
}

/** Whether a stored pet holds exactly the fields of a new one. */
function samePet(stored: Pet, pet: NewPet): boolean {
  return stored.name === pet.name && stored.categoryId === pet.categoryId && stored.status === pet.status;
}
