/**
 * @module
 * The operations of the API, each declared once in its own module: `routes.ts` serves them and
 * `openapi/mod.ts` documents them, in this order (a path's `GET` first, its other methods as listed).
 */
import type { Operation } from "../operation.ts";
import { createPet } from "./create-pet.ts";
import { getPet } from "./get-pet.ts";
import { listPets } from "./list-pets.ts";
import { listStoreOrders } from "./list-store-orders.ts";

/** Every operation the document describes. */
export const OPERATIONS: readonly Operation[] = Object.freeze([listPets, createPet, getPet, listStoreOrders]);
