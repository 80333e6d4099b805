import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Measure } from "../bench/report.ts";
import { ratioCell, rateCell, replaceGeneratedBlock } from "../bench/report.ts";

const runs = (...rates: number[]): Measure[] => rates.map((rps) => ({ rps, p50: 1, p99: 2, rssMiB: 50 }));
const START = "<!-- bench/http.ts writes this table on a full run: start -->";
const END = "<!-- bench/http.ts: end -->";

describe("the HTTP benchmark's report", () => {
  test("the README holds the block a full run rewrites, once", () => {
    const readme = readFileSync("README.md", "utf8");
    expect([readme.split(START).length - 1, readme.split(END).length - 1]).toEqual([1, 1]);
    expect(readme.indexOf(START)).toBeLessThan(readme.indexOf(END));
  });

  test("a full run replaces only the text between the README's markers", () => {
    const text = `# Title\n\nBefore.\n${START}\nold table\n${END}\nAfter.\n`;
    expect(replaceGeneratedBlock(text, "new table")).toBe(`# Title\n\nBefore.\n${START}\nnew table\n${END}\nAfter.\n`);
  });

  test("requests/s are shown as the median with the lowest and highest round", () => {
    expect(rateCell(runs(30_000, 10_000, 20_000, 25_000))).toBe("22,500 (10,000–30,000)");
    expect(rateCell(undefined)).toBe("–");
  });

  test("a ratio is that of the medians, with the lowest and highest ratio of a single round", () => {
    expect(ratioCell(runs(90, 120, 100), runs(100, 100, 50))).toBe("1.00 (0.90–2.00)");
    expect(ratioCell(runs(90), undefined)).toBe("–");
  });
});
