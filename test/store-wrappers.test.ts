import { afterEach, describe, expect, test } from "bun:test";
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { ImportOptions, ImportSummary, MovedPet, NewPet, PageQuery, Pet, PetStore, StoreMethod } from "../src/mod.ts";
import { createMemoryStore, STORE_METHODS, wrapStore } from "../src/mod.ts";
import { createMetrics } from "../adapters/server/metrics.ts";
import { tracing } from "../src/tracing/mod.ts";

api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer("test");
afterEach(() => exporter.reset());

// A method `PetStore` gains must have a row: a table without one does not compile.
// @ts-expect-error -- "update" has no row in STORE_METHODS
const _withoutRow: { readonly [Method in keyof (PetStore & { update?(): Promise<void> })]-?: StoreMethod } = STORE_METHODS;

/** A store as a class: its methods live on the prototype, where a spread does not look. */
class ClassStore implements PetStore {
  readonly #inner = createMemoryStore();
  calls: string[] = [];
  create(pet: NewPet): Promise<Pet> {
    this.calls.push("create");
    return this.#inner.create(pet);
  }
  get(id: number): Promise<Pet | undefined> {
    this.calls.push("get");
    return this.#inner.get(id);
  }
  list(query: PageQuery): Promise<Pet[]> {
    this.calls.push("list");
    return this.#inner.list(query);
  }
  health(): Promise<{ ok: true }> {
    this.calls.push("health");
    return Promise.resolve({ ok: true });
  }
  async *exportPets(): AsyncIterable<MovedPet> {
    this.calls.push("exportPets");
    yield* this.#inner.exportPets!();
  }
  importPets(pets: AsyncIterable<MovedPet>, options?: ImportOptions): Promise<ImportSummary> {
    this.calls.push("importPets");
    return this.#inner.importPets!(pets, options);
  }
  close(): Promise<void> {
    this.calls.push("close");
    return Promise.resolve();
  }
}

/** Calls every method of the table on `store` once, as the service would. */
async function callEvery(store: PetStore): Promise<void> {
  await store.create({ name: "Rex", categoryId: 1 });
  await store.createWithKey?.({ name: "Kit", categoryId: 1 }, { client: "c", key: "k" });
  await store.get(1);
  await store.list({ limit: 5, after: 0 });
  await store.health?.();
  for await (const _ of store.exportPets?.() ?? []) continue;
  await store.importPets?.((async function* () {})(), { append: true });
  await store.close();
}

const measured = Object.entries(STORE_METHODS).flatMap(([method, row]) => ("label" in row ? [[method, row.label] as const] : []));

/** A store whose every method of the table resolves at once with its name: the wrappers are called with no store behind them. */
function storeOfEveryMethod(): PetStore {
  return Object.fromEntries(Object.keys(STORE_METHODS).map((method) => [method, () => Promise.resolve(method)])) as unknown as PetStore;
}

/** Calls `method` of a wrapped store, whatever it takes: the table's method, by name. */
function callByName(store: PetStore, method: string): Promise<unknown> {
  return (store as unknown as Record<string, () => Promise<unknown>>)[method]!();
}

describe("the wrappers of a store measure every method STORE_METHODS measures", () => {
  test("each row either measures its method or says why not", () => {
    for (const [method, row] of Object.entries(STORE_METHODS)) {
      expect({ method, reason: "label" in row ? row.label : row.unmeasured }).toEqual({ method, reason: expect.stringMatching(/^\S.{2,}/) });
    }
  });

  test.each(measured)("the metrics count and time %s as operation=%p", async (method, label) => {
    const metrics = createMetrics({ basePath: "/v1" });
    expect(await callByName(metrics.observeStore(storeOfEveryMethod()), method)).toBe(method);
    const text = await metrics.text();
    expect(text).toContain(`animal_store_store_operations_total{operation="${label}",outcome="ok"} 1\n`);
    expect(text).toContain(`animal_store_store_operation_duration_seconds_count{operation="${label}"} 1\n`);
  });

  test.each(measured)("the tracing gives %s a span of its own", async (method) => {
    const traces = tracing({ api, tracer });
    const store = traces.store(storeOfEveryMethod());
    const parent = tracer.startSpan("request");
    await api.context.with(api.trace.setSpan(api.context.active(), parent), () => callByName(store, method));
    parent.end();
    expect(exporter.getFinishedSpans().filter((span) => span.name === `PetStore.${method}`)).toHaveLength(1);
  });

  test("a store written as a class keeps every method through both wrappers, each called on the store itself", async () => {
    const store = new ClassStore();
    const metrics = createMetrics({ basePath: "/v1" });
    await callEvery(tracing({ api, tracer }).store(metrics.observeStore(store)));
    expect(store.calls).toEqual(["create", "get", "list", "health", "exportPets", "importPets", "close"]);
  });

  test("wrapStore passes a call's arguments and answer through, and keeps what a store has beyond the interface", async () => {
    const seen: string[] = [];
    const store = { ...createMemoryStore(), compact: () => "compacted" };
    const wrapped = wrapStore(store, (method, label, call) => (seen.push(`${method}/${label}`), call())) as typeof store;
    const pet = await wrapped.create({ name: "Rex", categoryId: 3 });
    expect(await wrapped.get(pet.id)).toEqual(pet);
    expect(wrapped.compact()).toBe("compacted");
    expect(seen).toEqual(["create/create", "get/get"]);
  });
});
