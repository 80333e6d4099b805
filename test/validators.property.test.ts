import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { MAX_EXACT_INTEGER } from "../src/mod.ts";
import { hasFractionOrExponent, topLevelNumberLiterals } from "../src/_internal/_number-literals.ts";
import { parseQuery } from "../src/_internal/_query-string.ts";
import { LIMIT } from "../src/operations/list-pets.ts";
import { validateNewPet } from "../src/validate-pet.ts";
import { createPets, get, testApp } from "./helpers.ts";

const status = fc.constantFrom("available", "pending", "sold");
// Control characters are refused in a new name (see create-pet.test.ts).
const name = fc.string({ minLength: 1, maxLength: 200, unit: "grapheme" }).filter((text) => text.trim() !== "" && !/\p{Cc}/u.test(text));
const newPet = fc.record(
  { name, categoryId: fc.integer({ min: -MAX_EXACT_INTEGER, max: MAX_EXACT_INTEGER }), status },
  { requiredKeys: ["name", "categoryId"] },
);

describe("validators, for any input", () => {
  test("every valid new pet is accepted unchanged", () => {
    fc.assert(fc.property(newPet, (pet) => {
      const result = validateNewPet(JSON.stringify(pet));
      expect(result).toEqual({ ok: true, value: pet });
    }));
  });

  test("any body with an extra field is refused, naming the field", () => {
    const extraKey = fc.string({ minLength: 1 }).filter((key) => !["name", "categoryId", "status"].includes(key));
    fc.assert(fc.property(newPet, extraKey, fc.jsonValue(), (pet, key, value) => {
      const body = JSON.stringify({ ...pet, [key]: value });
      const result = validateNewPet(body);
      const expected = key === "id" ? '"id" is assigned by the service' : `unknown field ${JSON.stringify(key)}`;
      expect(result.ok ? "accepted" : result.issues.join("; ")).toContain(expected);
    }));
  });

  test("any integer beyond ±(2^53 − 1) is refused, whatever JSON.parse rounds it to", () => {
    const big = fc.bigInt({ min: BigInt(MAX_EXACT_INTEGER) + 1n, max: 10n ** 30n });
    fc.assert(fc.property(big, fc.boolean(), (value, negative) => {
      const literal = `${negative ? "-" : ""}${value}`;
      const result = validateNewPet(`{"name":"a","categoryId":${literal}}`);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issues[0]).toContain(`got ${literal}`);
    }));
  });

  test("any non-JSON text is refused with an issue, never an exception", () => {
    fc.assert(fc.property(fc.string(), (text) => {
      const result = validateNewPet(text);
      if (!result.ok) expect(result.issues.length).toBeGreaterThan(0);
    }));
  });

  test("the written form of every top-level number is found, whatever the strings around it hold", () => {
    const numberLiteral = fc.oneof(fc.integer().map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map(String));
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.oneof(numberLiteral, fc.string().map((s) => JSON.stringify(s)))), (members) => {
      const json = `{${Object.entries(members).map(([key, literal]) => `${JSON.stringify(key)}:${literal}`).join(",")}}`;
      const literals = topLevelNumberLiterals(json);
      for (const [key, literal] of Object.entries(members)) {
        if (!literal.startsWith('"')) expect(literals.get(key)).toBe(literal);
      }
    }));
  });

  test("any limit from 1 to 100 returns at most that many pets; any other integer is refused", async () => {
    const app = testApp();
    await createPets(app, Array.from({ length: 101 }, (_, i) => ({ name: `p${i}`, categoryId: i })));
    await fc.assert(fc.asyncProperty(fc.integer({ min: -1000, max: 1000 }), async (limit) => {
      const response = await get(app, `/v1/pets?limit=${limit}`);
      const inRange = limit >= LIMIT.min && limit <= LIMIT.max;
      expect(response.status).toBe(inRange ? 200 : 400);
      if (inRange) expect(await response.json()).toHaveLength(limit);
    }), { numRuns: 200 });
  });
});

describe("hasFractionOrExponent", () => {
  test("finds a fraction or exponent in any number, and none in strings, true or false", () => {
    expect(hasFractionOrExponent('{"a":"1.5e3","b":true,"c":false,"d":null,"e":12}')).toBe(false);
    for (const literal of ["1.5", "1e3", "1E3", "-0.0", "2e-7"]) expect(hasFractionOrExponent(`{"a":"x","n":${literal}}`)).toBe(true);
  });

  test("agrees with the literal scanner on any object of numbers and strings", () => {
    const numberLiteral = fc.oneof(fc.integer().map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map(String));
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.oneof(numberLiteral, fc.string().map((s) => JSON.stringify(s)))), (members) => {
      const json = `{${Object.entries(members).map(([key, literal]) => `${JSON.stringify(key)}:${literal}`).join(",")}}`;
      const written = [...topLevelNumberLiterals(json).values()];
      expect(hasFractionOrExponent(json)).toBe(written.some((literal) => /[.eE]/.test(literal)));
    }));
  });
});

describe("parseQuery", () => {
  test("reads back any pairs a form encoder wrote, as URLSearchParams does", () => {
    const pairs = fc.array(fc.tuple(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" })));
    fc.assert(fc.property(pairs, (written) => {
      const query = new URLSearchParams(written).toString();
      expect(parseQuery(query)).toEqual(written);
    }));
  });

  test("skips empty parts, reads a bare name as an empty value and keeps broken escapes as written", () => {
    expect(parseQuery("")).toEqual([]);
    expect(parseQuery("a&&b=&=c&")).toEqual([["a", ""], ["b", ""], ["", "c"]]);
    expect(parseQuery("limit=%32%30&status=a+b&x=%zz+1")).toEqual([["limit", "20"], ["status", "a b"], ["x", "%zz 1"]]);
  });
});
