/**
 * @module
 * Private speed device, `_answerNow` (bench/RESULTS.md, issue 53, third round): a request whose store
 * answers at once is answered without a promise, so Bun sends the answer in the turn it read the
 * request (on Bun each promise between the app and the runtime cost about 0.3 µs). The public types
 * keep their promises (`App.fetch`, `PetStore`): an app's or a wrap's `fetch` and a store's read each
 * carry, as `_now`, the same work answering now. On the function, not beside it: whatever replaces the
 * function (a host's `{ ...app, fetch }`, `wrapStore`, a store spread with `get` replaced) drops it with
 * the function, and whatever does not know it (a host, a wrap, a store of someone else's) calls the
 * public function and gets the promise.
 *
 * A create waits for its body, so it is always a promise; after the body's one wait, a store whose
 * `create` carries `_now` (the memory store's) is answered in the body read's own continuation, with
 * no promise of the handler's or the store's (issue 53, fifth round). A store that writes first (the
 * JSON-file and PostgreSQL stores) is awaited as before.
 */
import type { NewPet, Pet } from "../pet.ts";
import type { PageQuery, PetStore } from "../store.ts";
import type { App, ConnectionInfo, Handler } from "../types.ts";

/** An answer now, or the promise of one where something on its way waits. */
export type _Answer = Response | Promise<Response>;

/** A handler that answers now where nothing on the way waits. */
export type _AnswerNow = (request: Request, connection?: ConnectionInfo) => _Answer;

/** A function that may carry, as `_now`, the same work answering now. */
type MaybeNow<F, Now> = F & { readonly _now?: Now };

/** The handler answering now that the app's `fetch` carries, else its `fetch`. */
export function _answerNowOf(app: App): _AnswerNow {
  return (app.fetch as MaybeNow<Handler, _AnswerNow>)._now ?? app.fetch;
}

/** An app answering with `answerNow`: its `fetch` promises the answer (and rejects where `answerNow` throws, as an async function would), carrying `answerNow` as `_now`. */
export function _appAnsweringNow(answerNow: _AnswerNow, onError: App["onError"]): App {
  const fetch: Handler = (request, connection) => {
    try {
      return Promise.resolve(answerNow(request, connection));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return { fetch: Object.assign(fetch, { _now: answerNow }), onError };
}

/** `next` of the value: now when it is one, once it is there when it is a promise. */
export function _then<T, R>(value: T | Promise<T>, next: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * `work` as a store method: the promise `PetStore` asks for, carrying `work` itself as `_now` (the memory
 * and JSON-file stores read from memory; the memory store's creates wait for nothing either).
 */
export function _methodNow<Args extends unknown[], T>(work: (...args: Args) => T): (...args: Args) => Promise<T> {
  return Object.assign(async (...args: Args) => work(...args), { _now: work });
}

/** `wrapped`, a wrapper's store method, carrying as `_now` the read `method` carries now run through `around`; `wrapped` alone when `method` carries none. */
export function _carryReadNow<Arg, T>(wrapped: (arg: Arg) => Promise<T>, method: (arg: Arg) => Promise<T>, around: (read: () => T) => T): (arg: Arg) => Promise<T> {
  const now = (method as MaybeNow<typeof method, (arg: Arg) => T>)._now;
  return now === undefined ? wrapped : Object.assign(wrapped, { _now: (arg: Arg) => around(() => now(arg)) });
}

/** The store's pet by id, now when its `get` can answer now. */
export function _getNow(store: PetStore, id: number): Pet | undefined | Promise<Pet | undefined> {
  const now = (store.get as MaybeNow<PetStore["get"], (id: number) => Pet | undefined>)._now;
  return now === undefined ? store.get(id) : now(id);
}

/** The pet the store creates, now when its `create` can answer now. */
export function _createNow(store: PetStore, pet: NewPet): Pet | Promise<Pet> {
  const now = (store.create as MaybeNow<PetStore["create"], (pet: NewPet) => Pet>)._now;
  return now === undefined ? store.create(pet) : now(pet);
}

/** The store's page of pets, now when its `list` can answer now. */
export function _listNow(store: PetStore, query: PageQuery): Pet[] | Promise<Pet[]> {
  const now = (store.list as MaybeNow<PetStore["list"], (query: PageQuery) => Pet[]>)._now;
  return now === undefined ? store.list(query) : now(query);
}
