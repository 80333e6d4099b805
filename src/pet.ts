/**
 * @module
 * The animal ("pet") as the interface defines it, and the limits this service puts on its fields.
 */

/** The availability values a pet's `status` may take, in the order the interface lists them. */
export const PET_STATUSES = ["available", "pending", "sold"] as const;

/** One of `available`, `pending`, `sold`. */
export type PetStatus = (typeof PET_STATUSES)[number];

/** A pet as a client sends it to `POST /pets`. */
export interface NewPet {
  readonly name: string;
  readonly categoryId: number;
  readonly status?: PetStatus;
}

/** A stored pet: a new pet plus the id the store assigned. */
export interface Pet extends NewPet {
  readonly id: number;
}

/** The longest accepted `name`, counted in Unicode code points. */
export const NAME_MAX_LENGTH = 200;

/** The largest integer JavaScript holds exactly (2^53 − 1): the bound for ids and `categoryId`. */
export const MAX_EXACT_INTEGER: number = Number.MAX_SAFE_INTEGER;

/**
 * The stored form of a new pet: its fields in a fixed order behind the id, nothing else, frozen, so
 * a text made of it may be remembered (see the rule in `store.ts`).
 */
export function withId(id: number, pet: NewPet): Pet {
  const { name, categoryId, status } = pet;
  return Object.freeze(status === undefined ? { id, name, categoryId } : { id, name, categoryId, status });
}

/** Whether a value is one of the pet status strings. */
export function isPetStatus(value: unknown): value is PetStatus {
  return value === "available" || value === "pending" || value === "sold";
}
