/**
 * @module
 * Private to the store contract: each check's frame (a fresh store, closed whatever happens), the
 * assertions that throw `Store contract broken: …` naming what was seen, and what the checks share.
 */
import type { IdempotencyKey, PetStore } from "../mod.ts";

/** One behaviour of the store contract; `run` rejects when the store breaks it. */
export interface StoreCheck {
  readonly name: string;
  readonly run: () => Promise<void>;
}

/** A check that runs `body` on a fresh store from `open`, and closes the store whatever happens. */
export function checkOn(open: () => Promise<PetStore>, name: string, body: (store: PetStore) => Promise<void>): StoreCheck {
  return {
    name,
    run: async () => {
      const store = await open();
      try {
        await body(store);
      } finally {
        await store.close();
      }
    },
  };
}

/** The client and key the checks create with. */
export const ALICE: IdempotencyKey = { client: "digest-of-alice", key: "8e03978e-40d5-43e8-bc93-6894a57f9324" };

/** Every item of an iterable, gathered. */
export async function gather<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** Throws, naming the broken promise, unless `holds`. */
export function expectTrue(holds: boolean, message: string): void {
  if (!holds) throw new Error(`Store contract broken: ${message}`);
}

/** Throws unless `actual` is `expected` as JSON, naming `what` and both. */
export function expectEqual(what: string, actual: unknown, expected: unknown): void {
  expectTrue(sameJson(actual, expected), `${what} should be ${show(expected)}, got ${show(actual)}`);
}

/** Deep equality of JSON-like values; a property set to `undefined` counts as absent, as in JSON. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && a.length !== (b as unknown[]).length) return false;
  const keysOf = (value: object) => Object.entries(value).filter(([, field]) => field !== undefined).map(([key]) => key).sort();
  const keys = keysOf(a);
  const otherKeys = keysOf(b);
  return keys.length === otherKeys.length &&
    keys.every((key, i) => key === otherKeys[i] && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** A value as a message shows it. */
export function show(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value);
}
