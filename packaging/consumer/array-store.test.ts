import { test } from "node:test";
import { storeChecks } from "animal-store/testing";
import { createArrayStore } from "./array-store.ts";

for (const check of storeChecks(async () => createArrayStore())) test(check.name, check.run);
