import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Measure } from "../bench/report.ts";
import { ratioCell, rateCell, replaceGeneratedBlock } from "../bench/report.ts";

const runs = (...rates: number[]): Measure[] => rates.map((rps) => ({ rps, p50: 1, p99: 2, rssMiB: 50 }));
const START = "<!-- bench/http.ts writes this table on a full run: start -->";
const END = "<!-- bench/http.ts: end -->";

describe("the HTTP benchmark's report", () => {
  test("docs/benchmarks.md holds the block a full run rewrites, once, and the README holds none", () => {
    const page = readFileSync("docs/benchmarks.md", "utf8");
    expect([page.split(START).length - 1, page.split(END).length - 1]).toEqual([1, 1]);
    expect(page.indexOf(START)).toBeLessThan(page.indexOf(END));
    expect(readFileSync("README.md", "utf8").includes(START)).toBe(false);
  });

  test("a full run replaces only the text between the page's markers", () => {
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
