import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Measure, Run } from "../bench/report.ts";
import { goalTable, pageBlock, ratioCell, rateCell, replaceGeneratedBlock, runtimeTable } from "../bench/report.ts";
import type { Kind, Runtime, Scenario } from "../bench/targets.ts";
import { planFor } from "../bench/targets.ts";

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

/** Requests/s every target of the made-up run below reaches in each of its two rounds. */
const RATES: Partial<Record<Kind, number>> = {
  limit: 1000, hono: 500, "hono-log": 400, "hono-traced": 250, elysia: 800, "elysia-log": 600, "elysia-traced": 200,
  fastify: 700, "fastify-log": 350, "fastify-traced": 210, direct: 650, project: 720, "project-log-off": 810,
  "project-traced": 540, "project-deno-serve": 480, "project-file": 300,
};

/** A run of list, get and create on every runtime, with the full run's plan and the rates above in both rounds. */
const madeUp: Run = {
  runtimes: ["bun", "deno", "node"],
  scenarios: ["list", "get", "create"],
  plan: planFor,
  runs: (_runtime: Runtime, _scenario: Scenario, kind: Kind) => (RATES[kind] === undefined ? undefined : runs(RATES[kind]!, RATES[kind]!)),
};

/** The cells of a table's row after its label. */
const rowOf = (table: readonly string[], label: string) => table.find((row) => row.startsWith(`| ${label} |`))?.slice(2, -2).split(" | ").slice(1);

describe("the HTTP benchmark's tables", () => {
  test("the full run measures Hono with its log beside the bare and traced Hono in list, get and create on every runtime", () => {
    for (const runtime of ["bun", "deno", "node"] as const) {
      for (const scenario of ["list", "get", "create"] as const) expect(planFor(runtime, scenario)).toContain("hono-log");
    }
  });

  test("Deno's table holds its default against the limit, Hono and Hono with its log", () => {
    const table = runtimeTable(madeUp, "deno", false);
    expect(table[0]).toBe("| scenario | limit | Hono | Hono with its log | project | project/limit | project/Hono | project/Hono with its log |");
    expect(rowOf(table, "list")).toEqual(["1,000", "500", "400", "720", "0.72 (0.72–0.72)", "1.44 (1.44–1.44)", "1.80 (1.80–1.80)"]);
  });

  test("Bun's and Node's tables hold the fast peer bare and with its log, and Hono bare and with its log", () => {
    expect(runtimeTable(madeUp, "bun", false)[0]).toBe("| scenario | limit | Elysia | Elysia with its log | Hono | Hono with its log | project | project/limit | project/Elysia | project/Elysia with its log | project/Hono | project/Hono with its log |");
    const node = runtimeTable(madeUp, "node", false);
    expect(node[0]).toContain("| Fastify | Fastify with its log | Hono | Hono with its log | project |");
    expect(rowOf(node, "get (LOG=off)")?.slice(-5)).toEqual(["0.81 (0.81–0.81)", "1.16 (1.16–1.16)", "2.31 (2.31–2.31)", "1.62 (1.62–1.62)", "2.02 (2.02–2.02)"]);
  });

  test("the goal table gives each runtime's ratios the goals name, the met ones in bold", () => {
    const goals = goalTable(madeUp);
    expect(goals[0]).toBe("| Goal | Bun list / get / create | Deno list / get / create | Node list / get / create |");
    expect(rowOf(goals, "Default ÷ bare peer (≥ 0.9 of Elysia and Fastify)")).toEqual(["**0.90** / **0.90** / **0.90** of Elysia", "1.44 / 1.44 / 1.44 of Hono", "**1.03** / **1.03** / **1.03** of Fastify"]);
    expect(rowOf(goals, "`LOG=off` ÷ bare peer (≥ 1.0 of Elysia and Fastify)")?.[0]).toBe("**1.01** / **1.01** / **1.01** of Elysia");
    expect(rowOf(goals, "Default ÷ the peers with their log")?.[1]).toBe("1.80 / 1.80 / 1.80 of Hono with its log");
    expect(rowOf(goals, "Default ÷ the runtime's limit (≥ 0.6 on Deno)")?.[1]).toBe("**0.72** / **0.72** / **0.72** (`Deno.serve` 0.48 / 0.48 / 0.48)");
    expect(rowOf(goals, "Traced ÷ untraced (≥ 0.85, and above every peer's own)")?.[0]).toBe("0.75 / 0.75 / 0.75; Hono 0.50 / 0.50 / 0.50; Elysia 0.25 / 0.25 / 0.25");
  });

  test("the goal table gives the sold list's p50 with 1,000,000 pets over that with 1,000, in bold at most 1.2", () => {
    const sold = (p50Million: number): Run => ({
      ...madeUp,
      scenarios: ["sold-1k", "sold-1M"],
      runs: (_runtime, scenario, kind) => (kind === "project" && scenario === "sold-1k" ? [{ rps: 1, p50: 2, p99: 3, rssMiB: 1 }]
        : kind === "project-file" && scenario === "sold-1M" ? [{ rps: 1, p50: p50Million, p99: 3, rssMiB: 1 }] : undefined),
    });
    expect(rowOf(goalTable(sold(2.6)), "Sold list p50, 1,000,000 ÷ 1,000 pets (≤ 1.2, held since issue 13)")).toEqual(["1.30", "1.30", "1.30"]);
    expect(rowOf(goalTable(sold(2.2)), "Sold list p50, 1,000,000 ÷ 1,000 pets (≤ 1.2, held since issue 13)")).toEqual(["**1.10**", "**1.10**", "**1.10**"]);
  });

  test("the page's generated block says when the run was made, beside the goals and every runtime's table", () => {
    const facts = { started: new Date("2026-11-28T15:13:05Z"), ended: new Date("2026-11-28T15:26:40Z"), loadBefore: 0.12, loadAfter: 2.4, rounds: 3, seconds: 2, versions: "Bun 1.4.5" };
    const block = pageBlock(madeUp, facts);
    expect(block.split("\n")[0]).toBe("HTTP, 2026-11-28, 15:13–15:26 UTC, 1-minute load average 0.1 before the run, 2.4 at its end (`npm run bench`: 3 interleaved rounds of 2 s, wrk 32 connections; Bun 1.4.5).");
    for (const part of [...goalTable(madeUp), ...runtimeTable(madeUp, "deno", false), "Deno:", "Node:"]) expect(block).toContain(part);
  });
});
