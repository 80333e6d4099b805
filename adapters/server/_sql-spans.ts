/**
 * @module
 * Private to the standalone server's tracing: a client span per PostgreSQL statement, named by the
 * statement's operation (`SELECT`, `INSERT`), never carrying its text's values or its parameters.
 */
import type { SpanRunner } from "../../src/tracing/mod.ts";
import type { SqlClient, SqlQuery, SqlValue } from "../postgres-store/mod.ts";
import { SPAN_KIND } from "../../src/tracing/mod.ts";

/** The client with every statement, a transaction's too, in a span of its own while a request's span is active. */
export function sqlWithSpans(sql: SqlClient, inSpan: SpanRunner): SqlClient {
  // A call site's strings are one array for every call, so its operation is worked out once.
  const operations = new WeakMap<TemplateStringsArray, Readonly<Record<string, string>>>();
  const traced = (query: SqlQuery): SqlQuery => (strings, ...values: readonly SqlValue[]) => {
    let attributes = operations.get(strings);
    if (attributes === undefined) {
      attributes = Object.freeze({ "db.system.name": "postgresql", "db.operation.name": operationOf(strings[0] ?? "") });
      operations.set(strings, attributes);
    }
    return inSpan(attributes["db.operation.name"]!, SPAN_KIND.client, attributes, () => Promise.resolve(query(strings, ...values)));
  };
  return Object.assign(traced(sql), { begin: <T>(body: (transaction: SqlQuery) => Promise<T>) => sql.begin((transaction) => body(traced(transaction))) });
}

/** The statement's first keyword, uppercased: `SELECT`, `INSERT`, `WITH`. */
export function operationOf(text: string): string {
  return /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? "SQL";
}
