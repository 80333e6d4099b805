/**
 * @module
 * How the PostgreSQL store meets failures: which errors a retry may cure (answered 503), which
 * leave nothing done (tried once more), and deadlines, so no call waits on the database forever.
 */
import { StoreUnavailableError } from "../../src/mod.ts";

/**
 * Runs `attempt`, and once more when it failed in a way that left nothing done. After a database
 * restart, each pooled connection fails its first query; the second attempt gets a new one.
 */
export async function againIfUndone<T>(attempt: () => PromiseLike<T>, leftNothingDone: (error: unknown) => boolean): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!leftNothingDone(error)) throw error;
    return await attempt();
  }
}

/** Whether a failed create was rolled back by the server for a reason a retry may cure. */
export function wasRolledBack(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && isTransient(state);
}

/** Whether a failure is one a retry may cure (every failure but a server error naming a bug). */
export function isTransientFailure(error: unknown): boolean {
  const state = sqlState(error);
  return state === undefined || isTransient(state);
}

/** The error a failed query is answered with: `StoreUnavailableError` when retrying may help. */
export function createFailure(error: unknown, isCreate: boolean): Error {
  if (error instanceof StoreUnavailableError) return error;
  if (!isTransientFailure(error)) return error instanceof Error ? error : new Error(String(error));
  const state = sqlState(error);
  // A server error means the transaction was rolled back; anything else may have hit after commit.
  const outcome = !isCreate ? "" : state === undefined ? "; the pet may or may not have been created" : "; no pet was created";
  return new StoreUnavailableError(`the database is unavailable (${describeError(error)})${outcome}`);
}

/** The 503 for a create its deadline answered: whether it was sent decides what may have happened. */
export function timeoutFailure(sent: boolean, timeoutMs: number): StoreUnavailableError {
  const outcome = sent ? "; the pet may or may not have been created" : "; no pet was created";
  return new StoreUnavailableError(`the database did not answer within ${timeoutMs} ms${outcome}`);
}

/**
 * Whether an SQLSTATE names a failure a retry may cure: connection (08), transaction rollback such
 * as serialization failure or deadlock (40), insufficient resources (53), operator intervention
 * such as a shutdown or a statement timeout (57), system errors (58), and a read-only database
 * (25006, as during a failover). Others (syntax, constraint, a dropped table) are bugs or damage.
 */
function isTransient(state: string): boolean {
  return ["08", "40", "53", "57", "58"].includes(state.slice(0, 2)) || state === "25006";
}

/**
 * The SQLSTATE of a server error: postgres.js puts it in `code`, Bun's `SQL` in `errno` (its
 * `code` is `ERR_POSTGRES_SERVER_ERROR`). Connection errors from either have none.
 */
export function sqlState(error: unknown): string | undefined {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  const candidate = typeof errno === "string" ? errno : code;
  return typeof candidate === "string" && /^[0-9A-Z]{5}$/.test(candidate) && /^[0-9]/.test(candidate) ? candidate : undefined;
}

/** An error's message, for the text of the failure that wraps it. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Rejects with `StoreUnavailableError` when `promise` has not settled within `ms`. */
export function withDeadline<T>(promise: PromiseLike<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreUnavailableError(`the database did not answer within ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}
