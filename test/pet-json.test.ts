import { describe, expect, test } from "bun:test";
import type { Pet } from "../src/mod.ts";
import { petsJson } from "../src/pet-json.ts";

const pet = (id: number): Pet => ({ id, name: `pet ${id}`, categoryId: id, status: "available" });

describe("petsJson", () => {
  test("a page of other pets after the same first pet gets its own text", () => {
    const [a, b, c] = [pet(1), pet(2), pet(3)];
    expect(JSON.parse(petsJson([a, b]))).toEqual([a, b]);
    expect(JSON.parse(petsJson([a, c]))).toEqual([a, c]);
    expect(JSON.parse(petsJson([a]))).toEqual([a]);
    expect(JSON.parse(petsJson([a, b, c]))).toEqual([a, b, c]);
    expect(JSON.parse(petsJson([a, b]))).toEqual([a, b]);
  });

  test("a page whose later pet is a new object is written from that object's own fields", () => {
    const first = [pet(7), pet(8)];
    expect(petsJson(first)).toBe(JSON.stringify(first));
    const renamed = [first[0]!, { ...pet(8), name: "renamed" }];
    expect(petsJson(renamed)).toBe(JSON.stringify(renamed));
  });

  test("stays exact past the number of remembered pages", () => {
    const pets = Array.from({ length: 3000 }, (_, i) => pet(i + 1));
    for (let round = 0; round < 2; round++) {
      for (let start = 0; start < pets.length; start += 2) {
        const page = pets.slice(start, start + 2 + round);
        expect(petsJson(page)).toBe(JSON.stringify(page));
      }
    }
  });

  test("an empty page is an empty array", () => {
    expect(petsJson([])).toBe("[]");
  });
});
