/**
 * @module
 * Must not compile: requests the document does not allow. `check.ts` runs
 * `tsc -p tsconfig.wrong-field.json` and expects exactly these two errors.
 */
import createClient from "openapi-fetch";
import type { paths } from "./generated/animal-store.ts";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8080/v1" });
// categoryId is an integer, not text.
export const created = client.POST("/pets", { body: { name: "Rex", categoryId: "1" } });
// limit misspelled: listPets has no parameter "limt".
export const listed = client.GET("/pets", { params: { query: { limt: "5" } } });
