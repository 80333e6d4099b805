import createClient from "openapi-fetch";
import type { paths } from "./generated/animal-store.ts";
export const pets = createClient<paths>({ baseUrl: "http://127.0.0.1:8080/v1", headers: { Authorization: "Bearer my-secret-key" } });
