/**
 * @module
 * Private: the JSON texts of pets and of pages of pets, remembered by the app that made them.
 *
 * What it buys: a list request sends a page text it has sent before instead of serialising 20 pets
 * again, the largest single cost of a list request (see bench/RESULTS.md). Only frozen pets are
 * remembered, so a remembered text can never go stale; a store that hands out new or unfrozen
 * objects simply never hits. A page is found by its first pet and checked against the very pets the
 * store returned, one reference each. Memory stays bounded by bytes (below): past them, the oldest go first.
 * The entity tags of texts are remembered too, so a page or pet sent again is not hashed again
 * (hashing a pet's text was 5% of a getPet request's JavaScript on Bun, `bun --cpu-prof`). And so are
 * the headers of a tagged 200, as one frozen record per text: never a `Headers`, which some hosts'
 * `Response` keeps by reference, so that a middleware adding a cookie to one answer would add it to
 * every later one. Each `Response` makes its own `Headers` from the record.
 */
import type { Pet } from "../pet.ts";
import { entityTag } from "./_entity-tag.ts";
import { utf8Length } from "./_json-response.ts";

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

/**
 * How much is kept, counted in bytes of text (two per UTF-16 code unit): pets' texts, pages' texts,
 * and the tags and headers of texts sent as tagged answers (keyed by the text, so they share strings
 * with the first two). 48 MiB at the very most per app, whatever clients ask for; a few MiB in use.
 */
const PET_TEXT_BYTES = 8 * 1024 * 1024;
const PAGE_TEXT_BYTES = 16 * 1024 * 1024;
const TAGGED_TEXT_BYTES = 24 * 1024 * 1024;

/** A tagged text's tag, and its 200's headers with the extra headers they were made with, as given and as a key (see `extraKey`). */
interface Tagged {
  readonly tag: string;
  ready?: {
    readonly extra: Readonly<Record<string, string>>;
    readonly key: string;
    readonly headers: Readonly<Record<string, string>>;
  };
}

/** A page's text and the pets it was made of. */
interface PageText {
  readonly pets: readonly Pet[];
  readonly text: string;
}

/** Empty memories of pet and page texts, for one app. */
export function createPetTexts(): PetTexts {
  const petTexts = createMemo<Pet, string>(PET_TEXT_BYTES, textBytes);
  const pageTexts = createMemo<Pet, PageText>(PAGE_TEXT_BYTES, (kept) => textBytes(kept.text) + 8 * kept.pets.length);
  // Keyed by the text itself: a text sent again is the same string, which engines hash once.
  const tagged = createMemo<string, Tagged>(TAGGED_TEXT_BYTES, (_, text) => textBytes(text));
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
  function taggedOf(text: string): Tagged {
    let kept = tagged.get(text);
    if (kept === undefined) {
      kept = { tag: entityTag(text) };
      tagged.set(text, kept);
    }
    return kept;
  }
  function taggedHeaders(text: string, extra: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    const kept = taggedOf(text);
    // The same record (the headers a request's answers carry, often none) is found by reference.
    if (kept.ready?.extra === extra) return kept.ready.headers;
    const key = extraKey(extra);
    if (kept.ready?.key === key) return kept.ready.headers;
    const headers = Object.freeze({ "content-type": "application/json", "content-length": String(utf8Length(text)), ...extra, etag: kept.tag });
    kept.ready = { extra, key, headers };
    return headers;
  }
  return { pet, page, tag: (text) => taggedOf(text).tag, taggedHeaders };
}

/** What a text takes in memory, near enough: two bytes a UTF-16 code unit, and a little for the entry. */
function textBytes(text: string): number {
  return 2 * text.length + 64;
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

/** A map that keeps entries up to a total weight in bytes, forgetting the oldest first. */
export interface Memo<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  /** The total weight of the entries kept. */
  bytes(): number;
}

/**
 * A memo bounded by `capacity` bytes, each entry weighing `weigh(value, key)`. The oldest entry is
 * found through a queue of keys: a Map's first key is slow to find after many deletions.
 */
export function createMemo<K, V>(capacity: number, weigh: (value: V, key: K) => number): Memo<K, V> {
  const values = new Map<K, { value: V; weight: number }>();
  let queue: K[] = [];
  let head = 0;
  let total = 0;
  function forgetOldest(): void {
    const key = queue[head++]!;
    total -= values.get(key)!.weight;
    values.delete(key);
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  }
  return {
    get: (key) => values.get(key)?.value,
    set(key, value) {
      const weight = weigh(value, key);
      const old = values.get(key);
      if (old === undefined) queue.push(key);
      else total -= old.weight;
      values.set(key, { value, weight });
      total += weight;
      while (total > capacity && head < queue.length - 1) forgetOldest();
    },
    bytes: () => total,
  };
}
