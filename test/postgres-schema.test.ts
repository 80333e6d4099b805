/**
 * @module
 * The PostgreSQL tables' bounds against the service's own: DDL takes no parameters, so the numbers
 * are written out in `_schema.ts`, and this ties them to the constants they stand for.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { MAX_EXACT_INTEGER, NAME_MAX_LENGTH } from "../src/mod.ts";

const ddl = readFileSync("adapters/postgres-store/_schema.ts", "utf8");

test("a pet's id column takes 1 to MAX_EXACT_INTEGER", () => {
  expect(ddl).toContain(`id bigint primary key check (id between 1 and ${MAX_EXACT_INTEGER})`);
});

test("a pet's name column takes 1 to NAME_MAX_LENGTH characters", () => {
  expect(ddl).toContain(`name text not null check (char_length(name) between 1 and ${NAME_MAX_LENGTH})`);
});

test("a pet's category_id column takes -MAX_EXACT_INTEGER to MAX_EXACT_INTEGER", () => {
  expect(ddl).toContain(`category_id bigint not null check (category_id between -${MAX_EXACT_INTEGER} and ${MAX_EXACT_INTEGER})`);
});
