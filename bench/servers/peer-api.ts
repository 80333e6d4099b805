/**
 * @module
 * What the framework peers (Hono, Elysia, Fastify) share, so they differ only in their framework: the
 * in-memory `Map` of pets a user of any of them would write, its page walk, and the answers the
 * interface fixes whatever the framework (the 401, the next-page link, the deprecation headers of getPet).
 */
import { KEY, seedPet } from "../fixtures.ts";

/** A pet's availability. */
export type Status = "available" | "pending" | "sold";

/** The statuses, in the order error messages name them. */
export const STATUSES: readonly Status[] = ["available", "pending", "sold"];

/** A stored pet. */
export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status?: Status;
}

/** The interface's error object. */
export interface ErrorObject {
  code: string;
  message: string;
  status: number;
}

/** An in-memory pet store: a `Map` in id order, the way a framework's user writes one. */
export interface PetMap {
  /** The pet with this id, if any. */
  get(id: number): Pet | undefined;
  /** Up to `limit` pets with ids above `after`, of one status if given, and the last id when more follow. */
  page(limit: number, after: number, status: Status | undefined): { pets: Pet[]; nextAfter: number | undefined };
  /** Stores a new pet under the next id. */
  add(fields: Omit<Pet, "id">): Pet;
}

/** A store holding the `count` pets every benchmark target starts with. */
export function createPetMap(count: number): PetMap {
  const pets = new Map<number, Pet>();
  for (let id = 1; id <= count; id++) pets.set(id, { id, ...seedPet(id, count) });
  let lastId = count;
  return {
    get: (id) => pets.get(id),
    page(limit, after, status) {
      const page: Pet[] = [];
      for (const pet of pets.values()) {
        if (pet.id > after && (status === undefined || pet.status === status)) page.push(pet);
        if (page.length > limit) break;
      }
      if (page.length <= limit) return { pets: page, nextAfter: undefined };
      page.pop();
      return { pets: page, nextAfter: page[page.length - 1]!.id };
    },
    add(fields) {
      lastId += 1;
      const pet: Pet = { id: lastId, ...fields };
      pets.set(pet.id, pet);
      return pet;
    },
  };
}

/** The origin of an absolute request URL (`http://host:port`), sliced rather than parsed, as the project does. */
export function originOf(url: string): string {
  return url.slice(0, url.indexOf("/", 8));
}

/** The `Link` value of the page after `nextAfter`, keeping `limit` and `status`, as the project writes it. */
export function nextLink(origin: string, limit: number, status: Status | undefined, nextAfter: number): string {
  const statusPart = status === undefined ? "" : `&status=${status}`;
  return `<${origin}/v1/pets?limit=${limit}${statusPart}&after=${nextAfter}>; rel="next"`;
}

/** The headers every answer of getPet carries (RFC 9745, RFC 8594 and the successor link). */
export function deprecationHeaders(origin: string): Record<string, string> {
  return {
    deprecation: "@1795305600",
    sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
    link: `<${origin}/v1/pets>; rel="successor-version"`,
  };
}

/** The 401 answer for an `Authorization` header that does not carry the key, or `undefined` when it does. */
export function refusedKey(header: string | undefined | null): { headers: Record<string, string>; body: ErrorObject } | undefined {
  if (header === undefined || header === null) return refusal(true);
  if (/^bearer +(\S+)$/i.exec(header)?.[1] === KEY) return undefined;
  // Another scheme counts as no credentials (RFC 6750 §3), as in the project.
  return refusal(!/^bearer(?: |$)/i.test(header));
}

function refusal(missing: boolean): { headers: Record<string, string>; body: ErrorObject } {
  return {
    headers: { "www-authenticate": missing ? 'Bearer realm="animal-store"' : 'Bearer realm="animal-store", error="invalid_token"' },
    body: {
      code: "unauthorized",
      message: missing ? "Missing API key: send it as Authorization: Bearer <key>" : "Invalid API key: the bearer token is not a known key",
      status: 401,
    },
  };
}
