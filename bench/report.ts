/**
 * @module
 * How the HTTP benchmark summarises its rounds: medians with their spread, ratios with the spread of
 * the per-round ratios (targets are interleaved, so round by round they met the same machine), the
 * tables of a run (each runtime's, the traced one, the goals of issue 53 as the run met them), and
 * the generated block of `docs/benchmarks.md` that a full run replaces.
 */
import type { Kind, Runtime, Scenario } from "./targets.ts";
import { PEER, PEER_TRACED, PEER_WITH_LOG } from "./targets.ts";

/** One wrk run against one target. */
export interface Measure {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly rssMiB: number;
}

/** The median of some numbers (`NaN` for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const count = (value: number) => Math.round(value).toLocaleString("en-US");
// Two decimals where ratios are near 1, whole numbers where a Map scan made them hundreds.
const times = (value: number) => value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2);

/** Requests/s as `median (min–max)`, or `–` when the target did not run. */
export function rateCell(runs: readonly Measure[] | undefined): string {
  if (runs === undefined || runs.length === 0) return "–";
  const rates = runs.map((run) => run.rps);
  return `${count(median(rates))} (${count(Math.min(...rates))}–${count(Math.max(...rates))})`;
}

/** The plain median requests/s, or `–`. */
export function rateMedian(runs: readonly Measure[] | undefined): string {
  return runs === undefined || runs.length === 0 ? "–" : count(median(runs.map((run) => run.rps)));
}

/**
 * project/other as the ratio of the medians, with the lowest and highest ratio of single rounds, or
 * `–` when either did not run.
 */
export function ratioCell(project: readonly Measure[] | undefined, other: readonly Measure[] | undefined): string {
  if (project === undefined || other === undefined || project.length === 0 || other.length === 0) return "–";
  const perRound = project.map((run, round) => run.rps / (other[round]?.rps ?? Number.NaN)).filter((ratio) => !Number.isNaN(ratio));
  const overall = median(project.map((run) => run.rps)) / median(other.map((run) => run.rps));
  return `${times(overall)} (${times(Math.min(...perRound))}–${times(Math.max(...perRound))})`;
}

const START = "<!-- bench/http.ts writes this table on a full run: start -->";
const END = "<!-- bench/http.ts: end -->";

/** `text` with the generated block between the markers replaced; unchanged when the markers are missing. */
export function replaceGeneratedBlock(text: string, block: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start === -1 || end < start) return text;
  return `${text.slice(0, start + START.length)}\n${block}\n${text.slice(end)}`;
}

/** What one run measured: the runtimes and scenarios it ran, each scenario's targets and each target's rounds. */
export interface Run {
  readonly runtimes: readonly Runtime[];
  readonly scenarios: readonly Scenario[];
  /** The targets of a scenario on a runtime, in the order they ran. */
  plan(runtime: Runtime, scenario: Scenario): readonly Kind[];
  /** A target's rounds in a scenario, `undefined` when it did not run. */
  runs(runtime: Runtime, scenario: Scenario, kind: Kind): readonly Measure[] | undefined;
}

/** When and how a run was made, for its caption. */
export interface RunFacts {
  readonly started: Date;
  readonly ended: Date;
  /** The 1-minute load average before the run and at its end (the run's own load shows in the second). */
  readonly loadBefore: number;
  readonly loadAfter: number;
  readonly rounds: number;
  readonly seconds: number;
  /** The runtimes', wrk's and the peers' versions, as one line. */
  readonly versions: string;
}

/** How a runtime is named in the tables. */
export const RUNTIME_NAME: Record<Runtime, string> = { bun: "Bun", deno: "Deno", node: "Node" };

/** How a target the project is held against is named in a column. */
const NAME: Partial<Record<Kind, string>> = {
  limit: "limit",
  elysia: "Elysia",
  "elysia-log": "Elysia with its log",
  fastify: "Fastify",
  "fastify-log": "Fastify with its log",
  hono: "Hono",
  "hono-log": "Hono with its log",
  direct: "direct",
};

/** The targets a project row is held against, in column order, where they ran: the runtime's fast peer before Hono. */
const COMPARED: readonly Kind[] = ["limit", "elysia", "elysia-log", "fastify", "fastify-log", "hono", "hono-log"];

/** How a project target other than the plain one is named in its row. */
const LABEL_SUFFIX: Partial<Record<Kind, string>> = {
  "project-file": "(file store)",
  "project-deno-serve": "(Deno.serve)",
  "project-log-off": "(LOG=off)",
  "project-traced": "(traced)",
  "project-before": "(before)",
  "project-cors": "(CORS on)",
  "project-rate-limit": "(rate limit not reached)",
  "project-metrics": "(metrics on)",
};

const label = (scenario: Scenario, project: Kind): string =>
  LABEL_SUFFIX[project] !== undefined ? `${scenario} ${LABEL_SUFFIX[project]}` : scenario === "create-c64" ? `${scenario} (memory store)` : scenario;
const line = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
const header = (cells: readonly string[]): string[] => [line(cells), `|${cells.map(() => "---").join("|")}|`];
const ranOn = (run: Run, runtime: Runtime, kind: Kind): boolean => run.scenarios.some((scenario) => run.plan(runtime, scenario).includes(kind));
const middle = (runs: readonly Measure[] | undefined, field: keyof Measure): number => median((runs ?? []).map((run) => run[field]));

/**
 * One runtime's table: a row for each project target of each scenario, beside the targets it is held
 * against and its ratio to each. `detailed` (bench/RESULTS.md) adds the rounds, each rate's lowest and
 * highest round, the project's latency and memory, and on Node `direct` beside the memory store's rows.
 */
export function runtimeTable(run: Run, runtime: Runtime, detailed: boolean): string[] {
  const compared = [...COMPARED, ...(detailed ? ["direct" as const] : [])].filter((kind) => ranOn(run, runtime, kind));
  const rate = detailed ? rateCell : rateMedian;
  const headings = ["scenario", ...(detailed ? ["rounds"] : []), ...compared.map((kind) => NAME[kind]!), "project",
    ...(detailed ? ["project p50 / p99 ms", "project RSS MiB"] : []), ...compared.map((kind) => `project/${NAME[kind]}`)];
  const rows = run.scenarios.flatMap((scenario) => run.plan(runtime, scenario).filter((kind) => kind.startsWith("project")).map((project) => {
    const own = run.runs(runtime, scenario, project);
    // project/direct is the Node adapter's own cost: only the memory store's default row has a like to compare.
    const other = (kind: Kind) => (kind === "direct" && project !== "project" ? undefined : run.runs(runtime, scenario, kind));
    const details = [`${middle(own, "p50").toFixed(2)} / ${middle(own, "p99").toFixed(2)}`, String(Math.round(middle(own, "rssMiB")))];
    return line([label(scenario, project), ...(detailed ? [String(own?.length ?? 0)] : []), ...compared.map((kind) => rate(other(kind))), rate(own),
      ...(detailed ? details : []), ...compared.map((kind) => ratioCell(own, other(kind)))]);
  }));
  return [...header(headings), ...rows];
}

/** Each traced target against itself untraced: the project's default, Hono and the runtime's fast peer. */
export function tracedTable(run: Run): string[] {
  const rows = run.runtimes.flatMap((runtime) => run.scenarios.filter((scenario) => run.plan(runtime, scenario).includes("project-traced")).map((scenario) => {
    const runs = (kind: Kind | undefined) => (kind === undefined ? undefined : run.runs(runtime, scenario, kind));
    const [project, hono, peer] = [runs("project-traced"), runs("hono-traced"), runs(PEER_TRACED[runtime])];
    const peerCells = PEER[runtime] === undefined ? ["–", "–", "–"] : [NAME[PEER[runtime]]!, rateMedian(peer), ratioCell(peer, runs(PEER[runtime]))];
    return line([RUNTIME_NAME[runtime], scenario, rateMedian(project), ratioCell(project, runs("project")), rateMedian(hono), ratioCell(hono, runs("hono")), ...peerCells]);
  }));
  return [...header(["runtime", "scenario", "project traced req/s", "÷ default", "Hono traced req/s", "÷ bare Hono", "peer", "peer traced req/s", "÷ bare peer"]), ...rows];
}

/** The scenarios the goals of issue 53 name. */
const GOAL_SCENARIOS: readonly Scenario[] = ["list", "get", "create"];

/** The sold list's p50 with 1,000,000 pets over that with 1,000 (the file store's against the memory store's), `undefined` unless both ran. */
function scaleOf(run: Run, runtime: Runtime): number | undefined {
  const ratio = middle(run.runs(runtime, "sold-1M", "project-file"), "p50") / middle(run.runs(runtime, "sold-1k", "project"), "p50");
  return Number.isNaN(ratio) ? undefined : ratio;
}

/** A ratio of medians as the tables write it, bold where it meets `goal` (at least it, or at most it when `atMost`). */
function goalCell(ratio: number, goal?: number, atMost = false): string {
  if (Number.isNaN(ratio)) return "–";
  const met = goal !== undefined && (atMost ? ratio <= goal : ratio >= goal);
  return met ? `**${times(ratio)}**` : times(ratio);
}

/** `kind` over `base` in each goal scenario, as `list / get / create`. */
function goalRatios(run: Run, runtime: Runtime, kind: Kind, base: Kind, goal?: number): string {
  return GOAL_SCENARIOS.map((scenario) => goalCell(middle(run.runs(runtime, scenario, kind), "rps") / middle(run.runs(runtime, scenario, base), "rps"), goal)).join(" / ");
}

/** `kind` over the runtime's bare peer, held to `goal` where the goal names one (Elysia, Fastify); on Deno, over Hono, for the record. */
function barePeerRatios(run: Run, runtime: Runtime, kind: Kind, goal: number): string {
  const peer = PEER[runtime];
  return peer === undefined ? `${goalRatios(run, runtime, kind, "hono")} of Hono` : `${goalRatios(run, runtime, kind, peer, goal)} of ${NAME[peer]}`;
}

/** Each goal of issue 53, and what the run measured for it on a runtime. */
const GOALS: readonly (readonly [string, (run: Run, runtime: Runtime) => string])[] = [
  ["Default ÷ bare peer (≥ 0.9 of Elysia and Fastify)", (run, runtime) => barePeerRatios(run, runtime, "project", 0.9)],
  ["`LOG=off` ÷ bare peer (≥ 1.0 of Elysia and Fastify)", (run, runtime) => barePeerRatios(run, runtime, "project-log-off", 1)],
  ["Default ÷ the peers with their log", (run, runtime) =>
    [PEER_WITH_LOG[runtime], "hono-log" as const].filter((kind) => kind !== undefined).map((kind) => `${goalRatios(run, runtime, "project", kind)} of ${NAME[kind]}`).join("; ")],
  ["Default ÷ the runtime's limit (≥ 0.6 on Deno)", (run, runtime) => {
    if (runtime !== "deno") return goalRatios(run, runtime, "project", "limit");
    return `${goalRatios(run, runtime, "project", "limit", 0.6)} (\`Deno.serve\` ${goalRatios(run, runtime, "project-deno-serve", "limit", 0.6)})`;
  }],
  ["Traced ÷ untraced (≥ 0.85, and above every peer's own)", (run, runtime) => {
    const peers: [Kind, Kind][] = [["hono-traced", "hono"], ...(PEER[runtime] === undefined ? [] : [[PEER_TRACED[runtime]!, PEER[runtime]] as [Kind, Kind]])];
    return [goalRatios(run, runtime, "project-traced", "project", 0.85), ...peers.map(([traced, bare]) => `${NAME[bare]} ${goalRatios(run, runtime, traced, bare)}`)].join("; ");
  }],
  ["Sold list p50, 1,000,000 ÷ 1,000 pets (≤ 1.2, held since issue 13)", (run, runtime) => goalCell(scaleOf(run, runtime) ?? Number.NaN, 1.2, true)],
];

/** The goals of issue 53 as the run met them: a row a goal, a column a runtime, met cells in bold. */
export function goalTable(run: Run): string[] {
  return [
    ...header(["Goal", ...run.runtimes.map((runtime) => `${RUNTIME_NAME[runtime]} ${GOAL_SCENARIOS.join(" / ")}`)]),
    ...GOALS.map(([goal, cells]) => line([goal, ...run.runtimes.map((runtime) => cells(run, runtime))])),
  ];
}

const clock = (date: Date): string => date.toISOString().slice(11, 16);

/** When a run was made and what else loaded the machine, e.g. `2026-11-28, 15:13–15:26 UTC, 1-minute load average 0.1 before the run, 2.4 at its end`. */
export function runTime(facts: RunFacts): string {
  const day = facts.started.toISOString().slice(0, 10);
  return `${day}, ${clock(facts.started)}–${clock(facts.ended)} UTC, 1-minute load average ${facts.loadBefore.toFixed(1)} before the run, ${facts.loadAfter.toFixed(1)} at its end`;
}

/** What a full run writes between the markers of `docs/benchmarks.md`: when it ran, the goals as it met them, each runtime's table, the traced one. */
export function pageBlock(run: Run, facts: RunFacts): string {
  return [
    `HTTP, ${runTime(facts)} (\`npm run bench\`: ${facts.rounds} interleaved round${facts.rounds === 1 ? "" : "s"} of ${facts.seconds} s, wrk 32 connections; ${facts.versions}).`,
    "",
    "The goals of issue 53 in this run, and the sold list's scale: the project's ratios of medians (**bold** where a goal is met):",
    "",
    ...goalTable(run),
    "",
    "Requests/s, medians; each ratio with the lowest–highest ratio of a single round. `sold-1k`/`sold-1M`: the list of",
    "one status with 1,000 / 1,000,000 pets; `create-c64`: creates from 64 connections; file store: the durable JSON file.",
    ...run.runtimes.flatMap((runtime) => ["", `${RUNTIME_NAME[runtime]}:`, "", ...runtimeTable(run, runtime, false)]),
    "",
    "Traced ÷ untraced, every request sampled (`@hono/otel`, `@elysiajs/opentelemetry`, `@fastify/otel` on the OpenTelemetry SDK; the project's own recorder, which writes the SDK's protobuf byte for byte; one sampler, batch size and OTLP sink for all):",
    "",
    ...tracedTable(run),
  ].join("\n");
}
