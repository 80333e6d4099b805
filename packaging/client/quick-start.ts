import createClient from "openapi-fetch";
import type { paths } from "./generated/animal-store.ts";
export const pets = createClient<paths>({ baseUrl: "http://127.0.0.1:8080/v1", headers: { Authorization: "Bearer my-secret-key" } });

const { data: created } = await pets.POST("/pets", { body: { name: "Rex", categoryId: 1 } });
const { data: firstTen } = await pets.GET("/pets", { params: { query: { limit: 10 } } });
const { data: pet, error } = await pets.GET("/pets/{petId}", { params: { path: { petId: 1 } } });
console.log(created?.id, firstTen?.length, pet?.name ?? error?.code);
