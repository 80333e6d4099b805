/**
 * @module
 * Private to the metrics: what the stores do. Every store's operations, counted and timed by
 * wrapping the `PetStore` (`wrapStore`: every method `STORE_METHODS` measures); the JSON-file store's group commits and keys, through its `observer`
 * option; PostgreSQL's statements, by wrapping the SQL client the store is given. None of the
 * stores needs to know about metrics beyond that one option.
 */
import type { PetStore } from "../../src/mod.ts";
import type { JsonFileStoreObserver } from "../json-file-store/mod.ts";
import type { SqlClient, SqlQuery, SqlValue } from "../postgres-store/mod.ts";
import type { Histogram } from "./_metric-kinds.ts";
import { STORE_METHODS, StoreUnavailableError, wrapStore } from "../../src/mod.ts";
import { sqlState } from "../postgres-store/mod.ts";
import { createHistogram, familyHeader, histogramSamples, label, LATENCY_BUCKETS, observe, sample } from "./_metric-kinds.ts";

/** The label of every measured store method, in the table's order. */
const OPERATIONS: readonly string[] = Object.values(STORE_METHODS).flatMap((row) => ("label" in row ? [row.label] : []));
const OUTCOMES = ["ok", "unavailable", "failed"] as const;
const STATEMENT_KINDS = ["read", "write"] as const;
/** How a statement ended: `timeout` is PostgreSQL's statement_timeout; `connection_error` got no answer (the client connects again). */
const STATEMENT_OUTCOMES = ["ok", "timeout", "connection_error", "failed"] as const;
/** Creates per group commit: powers of two up to the PostgreSQL store's batch limit. */
const BATCH_BUCKETS: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** The metrics of the stores, and the ways to gather them. */
export interface StoreMetrics {
  /** The store with every operation counted and timed. */
  observeStore(store: PetStore): PetStore;
  /** The observer to give `openJsonFileStore`. */
  readonly fileStore: JsonFileStoreObserver;
  /** The client with every statement timed and its failures counted, to give `openPostgresStore`. */
  observeSql(sql: SqlClient): SqlClient;
  /** The families in the text format; those of a store not in use are left out. */
  text(): string;
}

/** Empty store metrics. */
export function createStoreMetrics(): StoreMetrics {
  const durations = OPERATIONS.map(() => createHistogram(LATENCY_BUCKETS));
  const outcomes = OPERATIONS.map(() => new Float64Array(OUTCOMES.length));
  const commitSizes = createHistogram(BATCH_BUCKETS);
  const fsyncs = createHistogram(LATENCY_BUCKETS);
  const statements = STATEMENT_KINDS.map(() => createHistogram(LATENCY_BUCKETS));
  const statementOutcomes = STATEMENT_KINDS.map(() => new Float64Array(STATEMENT_OUTCOMES.length));
  let keysHeld: number | undefined;
  let sqlObserved = false;

  async function measured<T>(_method: string, operation: string, call: () => Promise<T>): Promise<T> {
    const index = OPERATIONS.indexOf(operation);
    const started = performance.now();
    try {
      const value = await call();
      outcomes[index]![0]!++;
      return value;
    } catch (error) {
      outcomes[index]![error instanceof StoreUnavailableError ? 1 : 2]!++;
      throw error;
    } finally {
      observe(durations[index]!, (performance.now() - started) / 1000);
    }
  }

  function observeStore(store: PetStore): PetStore {
    return wrapStore(store, measured);
  }

  const fileStore: JsonFileStoreObserver = {
    committed(creates, fsyncSeconds) {
      observe(commitSizes, creates);
      observe(fsyncs, fsyncSeconds);
    },
    keysHeld(count) {
      keysHeld = count;
    },
  };

  function observeSql(sql: SqlClient): SqlClient {
    sqlObserved = true;
    return observedClient(sql, (kind, seconds, outcome) => {
      observe(statements[kind]!, seconds);
      statementOutcomes[kind]![outcome]!++;
    });
  }

  function text(): string {
    let text = familyHeader("animal_store_store_operations_total", "counter", "Store operations by operation and outcome (unavailable: answered 503).");
    OPERATIONS.forEach((operation, i) => OUTCOMES.forEach((outcome, j) => {
      text += sample("animal_store_store_operations_total", `${label("operation", operation)},${label("outcome", outcome)}`, outcomes[i]![j]!);
    }));
    text += familyHeader("animal_store_store_operation_duration_seconds", "histogram", "How long store operations took, in seconds.");
    OPERATIONS.forEach((operation, i) => (text += histogramSamples("animal_store_store_operation_duration_seconds", label("operation", operation), durations[i]!)));
    if (keysHeld !== undefined) text += fileStoreText(commitSizes, fsyncs, keysHeld);
    if (sqlObserved) text += postgresText(statements, statementOutcomes);
    return text;
  }

  return { observeStore, fileStore, observeSql, text };
}

function fileStoreText(commitSizes: Histogram, fsyncs: Histogram, keysHeld: number): string {
  return familyHeader("animal_store_file_commit_creates", "histogram", "Creates written by each group commit of the JSON-file store.") +
    histogramSamples("animal_store_file_commit_creates", "", commitSizes) +
    familyHeader("animal_store_file_fsync_duration_seconds", "histogram", "How long the JSON-file store's fsync of each group commit took, in seconds.") +
    histogramSamples("animal_store_file_fsync_duration_seconds", "", fsyncs) +
    familyHeader("animal_store_idempotency_keys_held", "gauge", "Idempotency keys the JSON-file store holds (at most maxIdempotencyKeys).") +
    sample("animal_store_idempotency_keys_held", "", keysHeld);
}

function postgresText(statements: readonly Histogram[], outcomes: readonly Float64Array[]): string {
  let text = familyHeader("animal_store_postgres_statement_duration_seconds", "histogram", "How long PostgreSQL statements took, in seconds, by kind.");
  STATEMENT_KINDS.forEach((kind, i) => (text += histogramSamples("animal_store_postgres_statement_duration_seconds", label("kind", kind), statements[i]!)));
  text += familyHeader(
    "animal_store_postgres_statements_total",
    "counter",
    "PostgreSQL statements by kind and outcome: timeout is statement_timeout, connection_error got no answer and the client connects again.",
  );
  STATEMENT_KINDS.forEach((kind, i) => STATEMENT_OUTCOMES.forEach((outcome, j) => {
    text += sample("animal_store_postgres_statements_total", `${label("kind", kind)},${label("outcome", outcome)}`, outcomes[i]![j]!);
  }));
  return text;
}

/** Reports one finished statement: kind and outcome as indexes into their label lists. */
type StatementReport = (kind: number, seconds: number, outcome: number) => void;

/** The client, each statement timed from its call to its answer; a transaction's statements too. */
function observedClient(sql: SqlClient, report: StatementReport): SqlClient {
  // A call site's strings are one array for every call, so its kind is worked out once.
  const kinds = new WeakMap<TemplateStringsArray, number>();
  const observed = (query: SqlQuery): SqlQuery => (strings, ...values: readonly SqlValue[]) => {
    let kind = kinds.get(strings);
    if (kind === undefined) {
      kind = /^\s*select\b/i.test(strings[0] ?? "") ? 0 : 1;
      kinds.set(strings, kind);
    }
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    return Promise.resolve(query(strings, ...values)).then(
      (rows) => (report(kind, seconds(), 0), rows),
      (error: unknown) => {
        const state = sqlState(error);
        report(kind, seconds(), state === "57014" ? 1 : state === undefined ? 2 : 3);
        throw error;
      },
    );
  };
  return Object.assign(observed(sql), { begin: <T>(body: (transaction: SqlQuery) => Promise<T>) => sql.begin((transaction) => body(observed(transaction))) });
}
