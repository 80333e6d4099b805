/**
 * @module
 * How the HTTP benchmark summarises its rounds: medians with their spread, ratios with the spread of
 * the per-round ratios (targets are interleaved, so round by round they met the same machine), and
 * the generated block of `docs/benchmarks.md` that a full run replaces.
 */

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
