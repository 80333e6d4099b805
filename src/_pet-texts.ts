/**
 * @module
 * Private: the JSON texts of pets and of pages of pets, remembered by the app that made them.
 *
 * What it buys: a list request sends a page text it has sent before instead of serialising 20 pets
 * again, the largest single cost of a list request (see bench/RESULTS.md). Only frozen pets are
 * remembered, so a remembered text can never go stale; a store that hands out new or unfrozen
 * objects simply never hits. A page is found by its first pet and checked against the very pets the
 * store returned, one reference each. Memory stays bounded: past the capacity, the oldest go first.
 * The entity tags of texts are remembered too, so a page or pet sent again is not hashed again
 * (hashing a pet's text was 5% of a getPet request's JavaScript on Bun, `bun --cpu-prof`). And so are
 * the headers of a tagged 200, as one frozen record per text: never a `Headers`, which some hosts'
 * `Response` keeps by reference, so that a middleware adding a cookie to one answer would add it to
 * every later one. Each `Response` makes its own `Headers` from the record.
 */
import type { Pet } from "./pet.ts";
import { entityTag } from "./etag.ts";
import { utf8Length } from "./json-response.ts";

/** The JSON texts of pets, remembered per app. */
export interface PetTexts {
  /** The JSON text of one pet. */
  pet(pet: Pet): string;
  /** The JSON text of a list of pets: a bare array. */
  page(pets: readonly Pet[]): string;
  /** The strong entity tag of a pet's or a page's text. */
  tag(text: string): string;
  /**
   * The headers of a 200 carrying `text`: its media type, length, tag and `extra`, as a frozen record
   * made once and given to every such answer (each `Response` makes its own `Headers` of it).
   */
  taggedHeaders(text: string, extra: Readonly<Record<string, string>>): Readonly<Record<string, string>>;
}

/** How many pets' texts, and how many pages' texts, are kept. */
const REMEMBERED_PETS = 10_000;
const REMEMBERED_PAGES = 1_000;

/** A tagged 200's headers, and the extra headers they were made with, as given and as a key (see `extraKey`). */
interface ReadyHeaders {
  readonly extra: Readonly<Record<string, string>>;
  readonly key: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A page's text and the pets it was made of. */
interface PageText {
  readonly pets: readonly Pet[];
  readonly text: string;
}

/** Empty memories of pet and page texts, for one app. */
export function createPetTexts(): PetTexts {
  const petTexts = createMemo<Pet, string>(REMEMBERED_PETS);
  const pageTexts = createMemo<Pet, PageText>(REMEMBERED_PAGES);
  // Keyed by the text itself: a text sent again is the same string, which engines hash once.
  const tags = createMemo<string, string>(REMEMBERED_PETS + REMEMBERED_PAGES);
  const ready = createMemo<string, ReadyHeaders>(REMEMBERED_PETS + REMEMBERED_PAGES);
  function pet(value: Pet): string {
    let text = petTexts.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      if (Object.isFrozen(value)) petTexts.set(value, text);
    }
    return text;
  }
  function page(pets: readonly Pet[]): string {
    const first = pets[0];
    if (first === undefined) return "[]";
    const kept = pageTexts.get(first);
    if (kept !== undefined && samePets(kept.pets, pets)) return kept.text;
    const text = `[${pets.map(pet).join(",")}]`;
    if (pets.every(Object.isFrozen)) pageTexts.set(first, { pets: [...pets], text });
    return text;
  }
  function tag(text: string): string {
    let kept = tags.get(text);
    if (kept === undefined) {
      kept = entityTag(text);
      tags.set(text, kept);
    }
    return kept;
  }
  function taggedHeaders(text: string, extra: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    const kept = ready.get(text);
    // The same record (getPet's deprecation headers, see deprecation.ts) is found by reference.
    if (kept?.extra === extra) return kept.headers;
    const key = extraKey(extra);
    if (kept?.key === key) return kept.headers;
    const headers = Object.freeze({ "content-type": "application/json", "content-length": String(utf8Length(text)), ...extra, etag: tag(text) });
    ready.set(text, { extra, key, headers });
    return headers;
  }
  return { pet, page, tag, taggedHeaders };
}

/** The extra headers as one string: the same names and values give the same string. */
function extraKey(extra: Readonly<Record<string, string>>): string {
  let key = "";
  for (const name in extra) key += `${name}: ${extra[name]}\n`;
  return key;
}

function samePets(a: readonly Pet[], b: readonly Pet[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A map that keeps at most `capacity` entries, forgetting the oldest first. */
interface Memo<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
}

/** The oldest entry is found through a ring of keys: a Map's first key is slow to find after many deletions. */
function createMemo<K, V>(capacity: number): Memo<K, V> {
  const values = new Map<K, V>();
  const ring: (K | undefined)[] = new Array(capacity);
  let oldest = 0;
  return {
    get: (key) => values.get(key),
    set(key, value) {
      if (!values.has(key)) {
        const forgotten = ring[oldest];
        if (forgotten !== undefined) values.delete(forgotten);
        ring[oldest] = key;
        oldest = (oldest + 1) % capacity;
      }
      values.set(key, value);
    },
  };
}
