/**
 * @module
 * Private to the metrics: histograms, and writing metrics in the Prometheus text exposition format
 * (version 0.0.4: `# HELP`, `# TYPE`, then one `name{labels} value` line per series).
 *
 * Observing is a few number updates on a preallocated array, so counting a request allocates
 * nothing; all text is made when Prometheus scrapes.
 */

/** A histogram series: counts per upper bound (the last slot is `+Inf`), their sum and count. */
export interface Histogram {
  readonly bounds: readonly number[];
  /** Observations per bucket, not cumulative; one more slot than `bounds`, for `+Inf`. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** Request and store latencies, in seconds: 0.5 ms to 10 s. */
export const LATENCY_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** An empty histogram over the given upper bounds, in ascending order. */
export function createHistogram(bounds: readonly number[]): Histogram {
  return { bounds, counts: new Float64Array(bounds.length + 1), sum: 0, count: 0 };
}

/** Records one observation. */
export function observe(histogram: Histogram, value: number): void {
  const { bounds } = histogram;
  let bucket = 0;
  while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
  histogram.counts[bucket]!++;
  histogram.sum += value;
  histogram.count++;
}

/** The `# HELP` and `# TYPE` lines of a metric family. */
export function familyHeader(name: string, type: "counter" | "gauge" | "histogram", help: string): string {
  return `# HELP ${name} ${help.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}\n# TYPE ${name} ${type}\n`;
}

/** One sample line; `labels` is `""` or a list such as `route="/v1/pets",method="GET"`. */
export function sample(name: string, labels: string, value: number): string {
  return `${name}${labels === "" ? "" : `{${labels}}`} ${formatValue(value)}\n`;
}

/** The bucket, sum and count lines of one histogram series. */
export function histogramSamples(name: string, labels: string, histogram: Histogram): string {
  const prefix = labels === "" ? "" : `${labels},`;
  let text = "";
  let cumulative = 0;
  histogram.bounds.forEach((bound, i) => {
    cumulative += histogram.counts[i]!;
    text += sample(`${name}_bucket`, `${prefix}le="${formatValue(bound)}"`, cumulative);
  });
  text += sample(`${name}_bucket`, `${prefix}le="+Inf"`, histogram.count);
  return text + sample(`${name}_sum`, labels, histogram.sum) + sample(`${name}_count`, labels, histogram.count);
}

/** A label pair with its value escaped as the format asks (`\\`, `\"`, `\n`). */
export function label(name: string, value: string): string {
  return `${name}="${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")}"`;
}

/** A sample value as the format writes it: integers plainly, `+Inf`, `-Inf` and `NaN` by name. */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  return String(value);
}
