/**
 * @module
 * Graceful stop, the same on every runtime. Once the server stops, a request already being handled
 * is answered and its connection closed (`Connection: close`). A request that arrives later is held,
 * unanswered, while the server still listens: its client, waiting for the answer, opens no new
 * connection, so soon every client still sending waits on a held request, and no connection that
 * was just opened still has its first request on the way. Once none has arrived for a moment (of
 * time the server listened: a stall of the process is not quiet) and none is in flight, the adapter
 * stops listening (new connections are refused) and releases the held requests: each is answered 503
 * with `Connection: close`, as is any later one. Closing a connection
 * where a request is on its way resets it, and the client cannot tell whether its create was applied:
 * so what the adapter closes then is only what sent nothing for that moment, and connections holding
 * half a request (the app has not seen it). A request still in flight `IN_FLIGHT_WAIT_LIMIT_MS` into
 * the stop (a body that stalled) has its connection closed.
 *
 * Every adapter hands the app's answers on through here, so here an answer that is not a `Response`
 * (a wrap that forgot to return one) becomes the one 500, reported once, on every runtime.
 */
import type { _Answer, _AnswerNow } from "../src/_internal/_answer-now.ts";
import { errorResponse } from "../src/errors.ts";
import { setHeaders } from "../src/set-headers.ts";
import { splitUrl } from "../src/_internal/_request-target.ts";

/** A handler that counts the requests in flight, and the way to stop it. */
export interface Draining {
  /** The handler's answer: now where the handler answered now (`_answerNow`), else a promise. */
  readonly handler: _AnswerNow;
  /**
   * Stops taking requests, holding each new one; resolves `"answered"` once every request in flight
   * is answered and none has arrived for a moment, or `"overdue"` when some are still in flight at
   * the limit. The adapter then stops listening and calls `release`.
   */
  drain(): Promise<"answered" | "overdue">;
  /** Answers the held requests, and every later one, 503 with `Connection: close`. */
  release(): void;
  /** Resolves once no request is in flight or held (after their connections were closed, their handlers end). */
  settled(): Promise<void>;
}

/**
 * How long no request may have arrived and no answer gone out before the adapter stops listening:
 * a client whose keep-alive request was already on its way when the stop began is held and gets a
 * 503, not a reset, and so is one that sends its next request, on a new connection, as soon as its
 * answer (with `Connection: close`) arrives.
 */
const QUIET_MS = 250;

/** The longest the stop waits for quiet (new clients may keep coming while the runtime listens). */
const QUIET_WAIT_LIMIT_MS = 2000;

/**
 * The longest the stop waits for requests in flight: a create whose body stops arriving would
 * otherwise hold the stop until its body timeout (30 s by default), past the server's 10 s grace.
 * A body still arriving this long into the stop is cut; nothing of it is stored.
 */
const IN_FLIGHT_WAIT_LIMIT_MS = 3000;

const POLL_MS = 20;

/**
 * How much later than asked a poll may wake and still count as heard: a wake later than this follows a
 * stall (the process descheduled on a busy machine, a long collection) in which what clients sent was not
 * read. Timers run before the socket reads of the same turn, so deciding on that wake closed the server
 * over every request that arrived in the stall, unread; it is read at the next poll instead.
 */
const STALL_MS = POLL_MS;

/**
 * What an adapter does to every answer as it goes out (the held 503s too), once the request has stopped
 * counting as in flight; an answer, or a promise of one where it has to wait (an unread body).
 */
export type Finish = (request: Request, response: Response) => Response | Promise<Response>;

/**
 * Wraps a handler (an app's `fetch`, or its `_answerNow`) so that it can be drained; `finish` runs on
 * each answer inside the same step, so an adapter's own work on the answer adds no promise of its own
 * to a request's way (bench/RESULTS.md).
 */
export function createDraining(handler: _AnswerNow, finish: Finish = (_request, response) => response): Draining {
  let inFlight = 0;
  let held = 0;
  let closing = false;
  let lastActivity = 0;
  let release = () => {};
  const released = new Promise<void>((done) => (release = done));
  const hold = async (request: Request): Promise<Response> => {
    lastActivity = Date.now();
    held++;
    await released;
    held--;
    return finish(request, errorResponse("service_unavailable", "The server is shutting down; retry on a new connection", { connection: "close" }));
  };
  // The answer as it goes out (a rejection thrown on), finished once the request no longer counts as in flight.
  const out = (request: Request, answer: unknown, rejected = false): Response | Promise<Response> => {
    let response: Response;
    try {
      if (rejected) throw answer;
      response = checkedAnswer(request, answer);
      // Set on a copy where the answer's headers are immutable (`Response.redirect`, a `fetch()` answer).
      if (closing) response = setHeaders(response, { connection: "close" });
    } finally {
      inFlight--;
      // An answer that took longer than the quiet time (a slow commit, a slow body) is followed by
      // its client's next request: measuring quiet from the last arrival alone closed the server under it.
      if (closing) lastActivity = Date.now();
    }
    return finish(request, response);
  };
  const wrapped: _AnswerNow = (request, connection) => {
    if (closing) return hold(request);
    inFlight++;
    let answer: _Answer;
    try {
      answer = handler(request, connection);
    } catch (error) {
      answer = Promise.reject(error);
    }
    // `_answerNow`: an answer the app gave now goes out now, with no promise, so the runtime sends it
    // in the same turn (bench/RESULTS.md, issue 53, third round). Anything else is refused as before.
    if (!(answer instanceof Promise) && isAnswer(answer)) return out(request, answer);
    return Promise.resolve(answer).then((response) => out(request, response), (error: unknown) => out(request, error, true));
  };
  const drain = async (): Promise<"answered" | "overdue"> => {
    closing = true;
    const started = Date.now();
    lastActivity = started;
    const quiet = () => Date.now() - lastActivity >= QUIET_MS || Date.now() - started >= QUIET_WAIT_LIMIT_MS;
    // Quiet is counted in time the server listened: a stall is not quiet, whatever the clock says.
    let heard = true;
    while (inFlight > 0 || !heard || !quiet()) {
      if (inFlight > 0 && Date.now() - started >= IN_FLIGHT_WAIT_LIMIT_MS) return "overdue";
      const asleep = Date.now();
      await new Promise((wait) => setTimeout(wait, POLL_MS));
      heard = Date.now() - asleep <= POLL_MS + STALL_MS;
      if (!heard) lastActivity = Date.now();
    }
    return "answered";
  };
  const settled = async () => {
    while (inFlight + held > 0) await new Promise((wait) => setTimeout(wait, POLL_MS));
  };
  return { handler: wrapped, drain, release: () => release(), settled };
}

/** Whether an answer is a `Response`: duck-typed, since on Node it may be a `FastResponse` or a native one. */
function isAnswer(answer: unknown): answer is Response {
  const candidate = answer as Partial<Response> | null | undefined;
  return typeof candidate?.status === "number" && typeof candidate.headers?.get === "function";
}

/**
 * The app's answer, or a `TypeError` for the adapter to answer 500 and report: a string or `undefined`
 * handed on would be sent by Bun as an empty 204 when the connection closes after it, unreported.
 */
function checkedAnswer(request: Request, answer: unknown): Response {
  if (isAnswer(answer)) return answer;
  // Bun's URL of an HTTP/1.0 request without `Host` is its path alone.
  throw new TypeError(`The app answered ${request.method} ${splitUrl(request.url)?.path ?? "?"} with ${answer === null ? "null" : typeof answer}, not a Response`);
}
