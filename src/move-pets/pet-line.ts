/**
 * @module
 * A pet and the idempotency key that created it as one line of JSON: how an export carries a pet,
 * and how the JSON-file store keeps one (its data file is such lines under a header of its own).
 *
 * ```
 * {"id":1,"name":"Rex","categoryId":3,"status":"available"}
 * {"id":3,"name":"Kit","categoryId":1,"idempotency":{"clientMac":"…","key":"8e03978e-…","at":1795305600000}}
 * ```
 */
import type { Validation } from "../validation.ts";
import type { MovedKey, MovedPet } from "./moved.ts";
import { readIdempotencyKey } from "../idempotency.ts";
import { STORED_PET_FIELDS, validateStoredPet } from "../validate-pet.ts";

const LINE_FIELDS: readonly string[] = [...STORED_PET_FIELDS, "idempotency"];

/** A pet's line, without its newline: the pet, and its key in `client`/`clientMac`, `key`, `at` order. */
export function petLine({ pet, key }: MovedPet): string {
  if (key === undefined) return JSON.stringify(pet);
  const scope = key.client === undefined ? { clientMac: key.clientMac } : { client: key.client };
  return JSON.stringify({ ...pet, idempotency: { ...scope, key: key.key, at: key.at } });
}

/** Reads a pet's line: the pet and its key as the line holds it, or what is wrong with it. */
export function readPetLine(text: string): Validation<MovedPet> {
  const pet = validateStoredPet(text, LINE_FIELDS);
  if (!pet.ok) return { ok: false, issues: [`is not a valid pet: ${pet.issues.join("; ")}`] };
  // Parsed a second time only when the line may hold a key: most lines hold none.
  const key: unknown = text.includes('"idempotency"') ? JSON.parse(text).idempotency : undefined;
  if (key === undefined) return { ok: true, value: { pet: pet.value } };
  const problem = typeof key === "object" && key !== null ? keyProblem(key as MovedKey) : 'has an "idempotency" member that is not an object';
  if (problem !== undefined) return { ok: false, issues: [problem] };
  const { client, clientMac, key: name, at } = key as MovedKey;
  return { ok: true, value: { pet: pet.value, key: client === undefined ? { clientMac: clientMac!, key: name, at } : { client, key: name, at } } };
}

/** What is wrong with a moved idempotency key: `undefined` when nothing is. */
export function keyProblem(key: MovedKey): string | undefined {
  const client = key.client ?? key.clientMac;
  const valid = readIdempotencyKey(typeof key.key === "string" ? key.key : null);
  if (typeof client !== "string" || client === "" || (key.client !== undefined && key.clientMac !== undefined)) {
    return 'has an idempotency key without exactly one of "client" and "clientMac"';
  }
  if (!valid.ok || valid.value !== key.key) return `has an idempotency key that is not a valid Idempotency-Key: ${JSON.stringify(key.key)}`;
  if (!Number.isSafeInteger(key.at) || key.at < 0) return `has an idempotency key whose "at" is not a time in milliseconds: ${JSON.stringify(key.at)}`;
  return undefined;
}
