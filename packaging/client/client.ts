/**
 * @module
 * A client as its author would write it: `openapi-fetch` typed by the `paths` that
 * `openapi-typescript` generated from the document a running server serves. `check.ts` generates
 * the types, type-checks this file, and calls `useTheApi` against the server.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/animal-store.ts";

type Pet = components["schemas"]["Pet"];
type ApiError = components["schemas"]["Error"];

/** What each call answered, for the check to compare. */
export interface Outcomes {
  readonly created: { readonly status: number; readonly pet: Pet; readonly location: string | null };
  readonly listed: { readonly status: number; readonly pets: readonly Pet[] };
  readonly fetched: { readonly status: number; readonly pet: Pet };
  readonly missing: { readonly status: number; readonly error: ApiError };
  readonly invalid: { readonly status: number; readonly error: ApiError };
  readonly readOnly: { readonly status: number; readonly error: ApiError };
}

/** Creates a pet, lists pets, gets the pet, and makes three errors (no such pet, a limit out of range, a create with a read-only key). */
export async function useTheApi(baseUrl: string, key: string, readOnlyKey: string): Promise<Outcomes> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
  const reader = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${readOnlyKey}` } });

  const created = await client.POST("/pets", { body: { name: "Rex", categoryId: 1, status: "available" } });
  if (created.data === undefined) throw new Error(`Cannot create pet: ${created.error.message}`);

  const listed = await client.GET("/pets", { params: { query: { limit: 10, status: "available" } } });
  if (listed.data === undefined) throw new Error(`Cannot list pets: ${listed.error.message}`);

  const fetched = await client.GET("/pets/{petId}", { params: { path: { petId: created.data.id } } });
  if (fetched.data === undefined) throw new Error(`Cannot get pet: ${fetched.error.message}`);

  const missing = await client.GET("/pets/{petId}", { params: { path: { petId: 9007199254740991 } } });
  if (missing.error === undefined) throw new Error("Cannot get an error: pet 9007199254740991 was found");

  const invalid = await client.GET("/pets", { params: { query: { limit: 0 } } });
  if (invalid.error === undefined) throw new Error("Cannot get an error: limit 0 was accepted");

  // The 403 is a declared answer of the create, so its error is typed as the others are.
  const readOnly = await reader.POST("/pets", { body: { name: "Kit", categoryId: 1 } });
  if (readOnly.error === undefined) throw new Error("Cannot get an error: a read-only key created a pet");

  return {
    created: { status: created.response.status, pet: created.data, location: created.response.headers.get("location") },
    listed: { status: listed.response.status, pets: listed.data },
    fetched: { status: fetched.response.status, pet: fetched.data },
    missing: { status: missing.response.status, error: missing.error },
    invalid: { status: invalid.response.status, error: invalid.error },
    readOnly: { status: readOnly.response.status, error: readOnly.error },
  };
}
