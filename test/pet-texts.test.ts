import { describe, expect, test } from "bun:test";
import type { Pet } from "../src/mod.ts";
import { withId } from "../src/mod.ts";
import { createMemo, createPetTexts } from "../src/_internal/_pet-texts.ts";
import { NODE_LOADER } from "./node-ts.ts";

const pet = (id: number): Pet => withId(id, { name: `pet ${id}`, categoryId: id, status: "available" });

describe("remembered pet texts", () => {
  test("a page of other pets after the same first pet gets its own text", () => {
    const texts = createPetTexts();
    const [a, b, c] = [pet(1), pet(2), pet(3)];
    expect(JSON.parse(texts.page([a, b]))).toEqual([a, b]);
    expect(JSON.parse(texts.page([a, c]))).toEqual([a, c]);
    expect(JSON.parse(texts.page([a]))).toEqual([a]);
    expect(JSON.parse(texts.page([a, b, c]))).toEqual([a, b, c]);
    expect(JSON.parse(texts.page([a, b]))).toEqual([a, b]);
  });

  test("a page whose later pet is a new object is written from that object's own fields", () => {
    const texts = createPetTexts();
    const first = [pet(7), pet(8)];
    expect(texts.page(first)).toBe(JSON.stringify(first));
    const renamed = [first[0]!, pet(8)].map((value, i) => (i === 1 ? withId(8, { ...value, name: "renamed" }) : value));
    expect(texts.page(renamed)).toBe(JSON.stringify(renamed));
  });

  test("a pet that is not frozen is written afresh every time, so changing it cannot leave a stale text", () => {
    const texts = createPetTexts();
    const changing = { id: 1, name: "before", categoryId: 1 };
    expect(texts.pet(changing)).toBe(JSON.stringify(changing));
    expect(texts.page([changing])).toBe(JSON.stringify([changing]));
    changing.name = "after";
    expect(texts.pet(changing)).toBe(JSON.stringify(changing));
    expect(texts.page([changing])).toBe(JSON.stringify([changing]));
  });

  test("a tagged answer's headers are made once per text and extra headers, and anew when those change", () => {
    const texts = createPetTexts();
    const text = texts.pet(pet(1));
    const headers = texts.taggedHeaders(text, { link: "<http://a/v1/pets>" });
    expect(headers).toEqual({ "content-type": "application/json", "content-length": String(text.length), link: "<http://a/v1/pets>", etag: texts.tag(text) });
    expect(Object.isFrozen(headers)).toBe(true);
    expect(texts.taggedHeaders(text, { link: "<http://a/v1/pets>" })).toBe(headers);
    expect(texts.taggedHeaders(text, { link: "<http://b/v1/pets>" })["link"]).toBe("<http://b/v1/pets>");
    expect(texts.taggedHeaders(texts.pet(pet(2)), { link: "<http://a/v1/pets>" })["etag"]).toBe(texts.tag(texts.pet(pet(2))));
  });

  test("stays exact past the number of remembered pages", () => {
    const texts = createPetTexts();
    const pets = Array.from({ length: 3000 }, (_, i) => pet(i + 1));
    for (let round = 0; round < 2; round++) {
      for (let start = 0; start < pets.length; start += 2) {
        const page = pets.slice(start, start + 2 + round);
        expect(texts.page(page)).toBe(JSON.stringify(page));
      }
    }
  });

  test("an empty page is an empty array", () => {
    expect(createPetTexts().page([])).toBe("[]");
  });
});

describe("bounded memories", () => {
  test("a memo keeps entries up to its weight in bytes, forgetting the oldest first", () => {
    const memo = createMemo<number, string>(1000, (text) => text.length);
    for (let i = 0; i < 100; i++) memo.set(i, "x".repeat(100));
    expect(memo.bytes()).toBeLessThanOrEqual(1000);
    expect(memo.get(99)).toBe("x".repeat(100));
    expect(memo.get(90)).toBe("x".repeat(100));
    expect(memo.get(89)).toBeUndefined();
    memo.set(99, "y");
    expect(memo.bytes()).toBe(901);
  });

  test("a memo tells what it lets go: the oldest past its weight, and a value replaced under its key; never one counted again", () => {
    const forgotten: string[] = [];
    const memo = createMemo<number, string>(300, (text) => text.length, (text) => forgotten.push(text));
    memo.set(1, "a".repeat(100));
    memo.set(2, "b".repeat(100));
    memo.set(2, "c".repeat(100));
    const kept = "d".repeat(100);
    memo.set(3, kept);
    memo.set(3, kept);
    expect(forgotten).toEqual(["b".repeat(100)]);
    memo.set(4, "e".repeat(100));
    expect(forgotten).toEqual(["b".repeat(100), "a".repeat(100)]);
    expect([memo.get(1), memo.bytes()]).toEqual([undefined, 300]);
  });

  // The bound the texts are held to: 8 MiB of pets' and 16 MiB of pages' (docs/decisions.md).
  const BOUND_BYTES = 24 * 1024 * 1024;
  const RUNTIMES = [
    ["Bun", ["node_modules/.bin/bun"]],
    ["Node", ["node", "--expose-gc", "--import", NODE_LOADER]],
    ["Deno", ["node_modules/.bin/deno", "run", "--v8-flags=--expose-gc", "--allow-env", "--allow-read"]],
  ] as const;
  const NAMES = [["ASCII", "n"], ["Latin-1", "é"], ["two-byte", "ж"]] as const;

  test.each(RUNTIMES.flatMap(([runtime, command]) => NAMES.map(([alphabet, char]) => [runtime, alphabet, command, char] as const)))(
    "on %s, 3,000 full pages and 11,200 pets named with 200 %s characters, each sent tagged, grow the heap by no more than the texts' bound",
    async (_runtime, _alphabet, command, char) => {
      const child = Bun.spawn([...command, "test/fixtures/page-memo-heap.ts"], {
        env: { ...process.env, PETS: "11200", PAGES: "3000", NAME_CHAR: char },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      expect({ code, err }).toEqual({ code: 0, err: "" });
      const { grownBytes } = JSON.parse(out) as { grownBytes: number };
      expect(grownBytes).toBeLessThanOrEqual(BOUND_BYTES);
    },
    120_000,
  );
});
