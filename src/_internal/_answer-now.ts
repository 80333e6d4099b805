/**
 * @module
 * Private speed device, `_answerNow` (bench/RESULTS.md, issue 53, third round): a request whose store
 * answers at once is answered without a promise, so Bun sends the answer in the turn it read the
 * request (on Bun each promise between the app and the runtime cost about 0.3 µs). The public types
 * keep their promises (`App.fetch`, `PetStore`): an app or a wrap carries `_answerNow` beside its
 * `fetch`, and a store's read carries `_now` beside itself; whatever does not know them (a host, a
 * wrap, a store of someone else's) calls the public method and gets the promise.
 */
import type { Pet } from "../pet.ts";
import type { PageQuery, PetStore } from "../store.ts";
import type { App, ConnectionInfo, Handler } from "../types.ts";

/** An answer now, or the promise of one where something on its way waits. */
export type _Answer = Response | Promise<Response>;

/** A handler that answers now where nothing on the way waits. */
export type _AnswerNow = (request: Request, connection?: ConnectionInfo) => _Answer;

/** An app that carries its handler answering now. */
interface AnswersNow extends App {
  readonly _answerNow?: _AnswerNow;
}

/** The app's handler answering now when it carries one, else its `fetch`. */
export function _answerNowOf(app: App): _AnswerNow {
  return (app as AnswersNow)._answerNow ?? app.fetch;
}

/** An app answering with `answerNow`: its public `fetch` promises the answer, and rejects where `answerNow` throws, as an async function would. */
export function _appAnsweringNow(answerNow: _AnswerNow, onError: App["onError"]): App {
  const fetch: Handler = (request, connection) => {
    try {
      return Promise.resolve(answerNow(request, connection));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const app: AnswersNow = { fetch, onError, _answerNow: answerNow };
  return app;
}

/** `next` of the value: now when it is one, once it is there when it is a promise. */
export function _then<T, R>(value: T | Promise<T>, next: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** A store read that also answers now, under `_now` (the memory and JSON-file stores keep their pets in memory). */
type ReadNow<Arg, T> = ((arg: Arg) => Promise<T>) & { readonly _now?: (arg: Arg) => T };

/**
 * `read` as a store method: the promise `PetStore` asks for, carrying `read` itself as `_now`. On the
 * method, not beside it on the store: a wrapper that replaces the method (`wrapStore`, a test's failing
 * store) drops it with the method, and the core then waits for the wrapper's promise.
 */
export function _readNow<Arg, T>(read: (arg: Arg) => T): (arg: Arg) => Promise<T> {
  return Object.assign(async (arg: Arg) => read(arg), { _now: read });
}

/** The store's pet by id, now when its `get` can answer now. */
export function _getNow(store: PetStore, id: number): Pet | undefined | Promise<Pet | undefined> {
  const now = (store.get as ReadNow<number, Pet | undefined>)._now;
  return now === undefined ? store.get(id) : now(id);
}

/** The store's page of pets, now when its `list` can answer now. */
export function _listNow(store: PetStore, query: PageQuery): Pet[] | Promise<Pet[]> {
  const now = (store.list as ReadNow<PageQuery, Pet[]>)._now;
  return now === undefined ? store.list(query) : now(query);
}
