/**
 * @module
 * Private: the JSON texts of pets and of pages of pets, remembered by the app that made them.
 *
 * What it buys: a list request sends a page text it has sent before instead of serialising 20 pets
 * again, the largest single cost of a list request (see bench/RESULTS.md). Only frozen pets are
 * remembered, so a remembered text can never go stale; a store that hands out unfrozen objects
 * simply never hits, one that hands out new frozen ones shares the text, tag and headers of an equal
 * text. A page is found by its first pet and checked against the very pets the store returned, one
 * reference each. The entity tag of a text is kept with it, so a page or pet sent again is not hashed
 * again (hashing a pet's text was 5% of a getPet request's JavaScript on Bun, `bun --cpu-prof`). And so
 * are the headers of a tagged 200, as one frozen record per text: never a `Headers`, which some hosts'
 * `Response` keeps by reference, so that a middleware adding a cookie to one answer would add it to
 * every later one. Each `Response` makes its own `Headers` from the record.
 *
 * Memory stays bounded by the bytes of heap all of that takes, counted as the engines keep it (below),
 * the oldest forgotten first; nothing outlives its text's place in the memo, so the bound holds for
 * the heap itself (`test/pet-texts.test.ts` measures it on Bun, Deno and Node).
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
 * How much is kept per app, in bytes of heap as the engines keep it (see `keptBytes`): pets' texts and
 * pages' texts, each with its tag and the headers of its tagged answer once it was sent as one. 24 MiB
 * at the very most per app, whatever clients ask for; a few MiB in use.
 */
const PET_TEXT_BYTES = 8 * 1024 * 1024;
const PAGE_TEXT_BYTES = 16 * 1024 * 1024;

/**
 * A remembered text and what its string takes on the heap: a pet's, kept under the pet, or a page's,
 * kept under its first pet with the pets it was made of; and once it was sent as a tagged answer, its
 * tag and the headers of that answer with the extra headers they were made with, as given and as a
 * key (see `extraKey`).
 */
interface Kept {
  readonly key: Pet;
  readonly text: string;
  readonly textBytes: number;
  readonly pets: readonly Pet[] | undefined;
  tag: string | undefined;
  ready: Ready | undefined;
}

/** A tagged answer's headers, and the extra headers they were made with. */
interface Ready {
  readonly extra: Readonly<Record<string, string>>;
  readonly key: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Empty memories of pet and page texts, for one app. */
export function createPetTexts(): PetTexts {
  // Every text the two memos keep, found by the text itself (the engines hash a string once), for its
  // tag and headers: a text either memo forgets leaves it too, so nothing is kept that they do not count.
  const byText = new Map<string, Kept>();
  const forget = (kept: Kept) => {
    if (byText.get(kept.text) === kept) byText.delete(kept.text);
  };
  const petTexts = createMemo<Pet, Kept>(PET_TEXT_BYTES, keptBytes, forget);
  const pageTexts = createMemo<Pet, Kept>(PAGE_TEXT_BYTES, keptBytes, forget);
  /**
   * Keeps a text under `key`; an equal text kept already (a store that hands out new pets each time)
   * gives its string, tag and headers, so that neither is made twice.
   */
  function keep(memo: Memo<Pet, Kept>, key: Pet, text: string, pets: readonly Pet[] | undefined): string {
    const same = byText.get(text);
    const kept: Kept = { key, text: same?.text ?? text, textBytes: same?.textBytes ?? stringBytes(text), pets, tag: same?.tag, ready: same?.ready };
    byText.set(kept.text, kept);
    memo.set(key, kept);
    return kept.text;
  }
  /** Counts again what a kept text weighs, now that it holds more. */
  function reweigh(kept: Kept): void {
    (kept.pets === undefined ? petTexts : pageTexts).set(kept.key, kept);
  }
  function pet(value: Pet): string {
    const kept = petTexts.get(value);
    if (kept !== undefined) return kept.text;
    const text = JSON.stringify(value);
    return Object.isFrozen(value) ? keep(petTexts, value, text, undefined) : text;
  }
  function page(pets: readonly Pet[]): string {
    const first = pets[0];
    if (first === undefined) return "[]";
    const kept = pageTexts.get(first);
    if (kept?.pets !== undefined && samePets(kept.pets, pets)) return kept.text;
    const text = `[${pets.map(pet).join(",")}]`;
    return pets.every(Object.isFrozen) ? keep(pageTexts, first, text, [...pets]) : text;
  }
  function tag(text: string): string {
    const kept = byText.get(text);
    if (kept === undefined) return entityTag(text);
    if (kept.tag === undefined) {
      kept.tag = entityTag(text);
      reweigh(kept);
    }
    return kept.tag;
  }
  function taggedHeaders(text: string, extra: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    const kept = byText.get(text);
    // The same record (the headers a request's answers carry, often none) is found by reference.
    if (kept?.ready !== undefined && kept.ready.extra === extra) return kept.ready.headers;
    const key = extraKey(extra);
    if (kept?.ready !== undefined && kept.ready.key === key) return kept.ready.headers;
    const headers = Object.freeze({ "content-type": "application/json", "content-length": String(utf8Length(text)), ...extra, etag: tag(text) });
    if (kept !== undefined) {
      kept.ready = { extra, key, headers };
      reweigh(kept);
    }
    return headers;
  }
  return { pet, page, tag, taggedHeaders };
}

// What the heap holds, rounded up for V8 (Node, Deno) and JavaScriptCore (Bun) on 64 bits, checked
// against the heap itself by `test/pet-texts.test.ts`: a string's header and a byte a character (two
// when one is past U+00FF: then the engines keep it as UTF-16); a reference; and for each kept text
// its objects and its entries in the memo's `Map`, its queue and `byText`.
const STRING_BYTES = 48;
const REFERENCE_BYTES = 8;
const KEPT_BYTES = 384;
const TAG_BYTES = 128;
const READY_BYTES = 160;
const PAST_LATIN_1 = /[^\u0000-\u00ff]/;

/** What a kept text takes on the heap: its string, its pets, its tag, its tagged answer's headers. */
function keptBytes(kept: Kept): number {
  const pets = kept.pets === undefined ? 0 : 64 + REFERENCE_BYTES * kept.pets.length;
  const tag = kept.tag === undefined ? 0 : TAG_BYTES;
  // The key and the headers it was made from: the record and the extra headers hold the same values.
  const ready = kept.ready === undefined ? 0 : READY_BYTES + 2 * stringBytes(kept.ready.key);
  return KEPT_BYTES + kept.textBytes + pets + tag + ready;
}

/** What a string takes on the heap. */
function stringBytes(text: string): number {
  return STRING_BYTES + (PAST_LATIN_1.test(text) ? 2 : 1) * text.length;
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
  /** Keeps `value` under `key`, or counts its weight again when it is kept there already. */
  set(key: K, value: V): void;
  /** The total weight of the entries kept. */
  bytes(): number;
}

/**
 * A memo bounded by `capacity` bytes, each entry weighing `weigh(value)`; `forgotten` is told of each
 * value it lets go (forgotten or replaced). The oldest entry is found through a queue of keys: a Map's
 * first key is slow to find after many deletions.
 */
export function createMemo<K, V>(capacity: number, weigh: (value: V) => number, forgotten: (value: V) => void = () => {}): Memo<K, V> {
  const values = new Map<K, { value: V; weight: number }>();
  let queue: (K | undefined)[] = [];
  let head = 0;
  let total = 0;
  function forgetOldest(): void {
    const key = queue[head]!;
    // The slot is cleared, or the queue would keep every forgotten key (a page's text) alive.
    queue[head++] = undefined;
    const entry = values.get(key)!;
    total -= entry.weight;
    values.delete(key);
    forgotten(entry.value);
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  }
  return {
    get: (key) => values.get(key)?.value,
    set(key, value) {
      const weight = weigh(value);
      const old = values.get(key);
      if (old === undefined) queue.push(key);
      else total -= old.weight;
      values.set(key, { value, weight });
      total += weight;
      if (old !== undefined && old.value !== value) forgotten(old.value);
      while (total > capacity && head < queue.length - 1) forgetOldest();
    },
    bytes: () => total,
  };
}
