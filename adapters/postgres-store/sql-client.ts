/**
 * @module
 * The part of a PostgreSQL client the store uses: a tagged template and `begin`, which Bun's `SQL`
 * and postgres.js both offer. Its own file, so the store and its schema both import it.
 */

/** A tagged template that runs one query with its values sent as parameters, resolving with the rows. */
export type SqlQuery = (strings: TemplateStringsArray, ...values: readonly SqlValue[]) => PromiseLike<readonly Row[]>;

/** The part of a tagged-template PostgreSQL client this store uses (Bun's `SQL`, postgres.js). */
export interface SqlClient extends SqlQuery {
  /** Runs `body` in a transaction, committed when it resolves and rolled back when it rejects. */
  begin<T>(body: (sql: SqlQuery) => Promise<T>): PromiseLike<T>;
}

/** A value this store sends as a query parameter. */
export type SqlValue = string | number | null;

/** A result row as the clients return it: column name to value. */
export type Row = Readonly<Record<string, unknown>>;
