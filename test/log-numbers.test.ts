import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createHexCounter, millisecondsText } from "../adapters/server/_log-numbers.ts";

describe("the access log's numbers", () => {
  test("a duration prints as String prints it, for every whole number of microseconds and for anything else", () => {
    for (const ms of [0, 0.001, 0.01, 0.05, 0.1, 0.5, 1, 1.2, 1.234, 9.999, 10, 999.999, 1000, 123456.789, 2 ** 42 / 1000, 1e12, 0.0005, 1.2345, -1, -0.001, Number.NaN, Infinity]) {
      expect(millisecondsText(ms)).toBe(String(ms));
    }
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 45 }), (micros) => millisecondsText(Math.round((micros / 1000) * 1000) / 1000) === String(micros / 1000)));
    fc.assert(fc.property(fc.double({ min: 0, max: 1e7, noNaN: true }), (ms) => millisecondsText(ms) === String(ms)));
  });

  test("the counter counts from 1 in at least 12 hex digits, across the low 24 bits' turn", () => {
    const count = createHexCounter();
    expect([count(), count(), count()]).toEqual(["000000000001", "000000000002", "000000000003"]);
    let last = "";
    for (let i = 4; i <= 0x1000001; i++) last = count();
    expect(last).toBe((0x1000001).toString(16).padStart(12, "0"));
    expect(count()).toBe("000001000002");
  });
});
