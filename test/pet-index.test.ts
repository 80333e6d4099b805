import { expect, test } from "bun:test";
import type { Pet } from "../src/mod.ts";
import { addPet, createPetIndex, pageOf, petById } from "../src/_internal/_pet-index.ts";

function indexOf(ids: number[]) {
  const index = createPetIndex();
  const pets: Pet[] = ids.map((id) => ({ id, name: `p${id}`, categoryId: 1, ...(id % 2 === 0 ? { status: "sold" as const } : {}) }));
  for (const pet of pets) addPet(index, pet);
  return { index, pets };
}

test("pets are found by id whether ids are dense or have gaps", () => {
  const { index, pets } = indexOf([3, 4, 5, 9, 10, 40]);
  for (const pet of pets) expect(petById(index, pet.id)).toBe(pet);
  for (const missing of [0, 1, 2, 6, 8, 11, 39, 41, -1, 1e15]) expect(petById(index, missing)).toBeUndefined();
});

test("pages start after the cursor, whether or not it is an existing id", () => {
  const { index } = indexOf([3, 4, 5, 9, 10, 40]);
  expect(pageOf(index, { limit: 2, after: 6 }).map((pet) => pet.id)).toEqual([9, 10]);
  expect(pageOf(index, { limit: 10, after: 4, status: "sold" }).map((pet) => pet.id)).toEqual([10, 40]);
});

test("adding a pet whose id does not grow is refused", () => {
  const { index } = indexOf([3]);
  expect(() => addPet(index, { id: 3, name: "again", categoryId: 1 })).toThrow("ids must grow");
});
