/**
 * @module
 * Prometheus metrics of the standalone server, written by hand in the text exposition format (no
 * dependency): requests by route template, method and status, their latency, requests in flight
 * and open connections; the stores' operations (`_store-metrics.ts`); the process and build
 * (`_process-metrics.ts`). `GET /metrics` is served on a listener of its own (`METRICS_PORT`), so
 * the API's port never exposes it and scrapes are neither logged, limited nor counted as requests.
 *
 * Counting a request is a few number updates on arrays made in advance: label values come from the
 * route table, never from the path a client sent, so the number of series is fixed.
 */
import type { App, ConnectionInfo, NamedReport, Plug, Wrap } from "../../src/mod.ts";
import type { Histogram } from "./_metric-kinds.ts";
import type { StoreMetrics } from "./_store-metrics.ts";
import type { Output } from "./output.ts";
import { errorResponse } from "../../src/mod.ts";
import { ROUTES, splitUrl } from "../../src/_server-entry.ts";
import { HEALTH_PATH, PROBE_PATHS } from "../../src/plugs/health/mod.ts";
import { createHistogram, familyHeader, histogramSamples, label, LATENCY_BUCKETS, observe, sample } from "./_metric-kinds.ts";
import { processText } from "./_process-metrics.ts";
import { createRouteLabels, METHOD_LABELS, methodIndex } from "./_route-labels.ts";
import { createStoreMetrics } from "./_store-metrics.ts";
import { createOutput } from "./output.ts";

/** Where the metrics are served, on their own listener. */
export const METRICS_PATH = "/metrics";

/** The media type of the text exposition format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** One server's metrics. */
export interface Metrics extends Omit<StoreMetrics, "text"> {
  /** The app with every request counted by route template, method and status, and timed: the metrics' answer seam. */
  readonly wrap: Wrap;
  /** Reads the number of open connections from the server, where its runtime can tell. */
  countConnections(count: () => Promise<number>): void;
  /** Every metric in the text format. */
  text(): Promise<string>;
  /** `GET /metrics`, answering with `text()`: the app of the metrics listener. */
  readonly app: App;
  /** A plug that reads what the app's plugs report (`PlugReport.gauges`), served as `animal_store_plug_<name>`; a plug's own metrics need nothing else. */
  readonly plug: Plug;
}

/** How requests and statuses are held: one slot per route template and method, made when first used. */
interface Slot {
  /** Answers by status, at index `status - 100`. */
  readonly statuses: Float64Array;
  readonly durations: Histogram;
}

const STATUSES = 500;

/** Where the metrics are served; `more` adds families of another part (the trace export's); the output whose dropped lines they count and where their errors go (default: the process's). */
export interface MetricsOptions {
  readonly basePath: string;
  readonly more?: () => string;
  readonly output?: Output;
}

/** Empty metrics for an app served under `basePath`. */
export function createMetrics(options: MetricsOptions): Metrics {
  // Each probe its own label: a failing readiness probe is told from a failing liveness one.
  const routes = createRouteLabels([...ROUTES.map((route) => `${options.basePath}${route.path}`), HEALTH_PATH, ...Object.values(PROBE_PATHS)]);
  const slots: (Slot | undefined)[] = new Array(routes.labels.length * METHOD_LABELS.length);
  const stores = createStoreMetrics();
  const output = options.output ?? createOutput();
  let inFlight = 0;
  let connections: (() => Promise<number>) | undefined;
  let reports: () => readonly NamedReport[] = () => [];

  function count(request: Request, status: number, started: number): void {
    const index = routes.labelOf(request.url) * METHOD_LABELS.length + methodIndex(request.method);
    const slot = slots[index] ??= { statuses: new Float64Array(STATUSES), durations: createHistogram(LATENCY_BUCKETS) };
    if (status >= 100 && status < 100 + STATUSES) slot.statuses[status - 100]!++;
    observe(slot.durations, (performance.now() - started) / 1000);
  }

  function wrap(app: App): App {
    async function fetch(request: Request, connection?: ConnectionInfo): Promise<Response> {
      const started = performance.now();
      inFlight++;
      try {
        const response = await app.fetch(request, connection);
        count(request, response.status, started);
        return response;
      } finally {
        inFlight--;
      }
    }
    return { fetch, onError: app.onError };
  }

  async function text(): Promise<string> {
    let text = requestsText(slots, routes.labels) +
      familyHeader("animal_store_http_requests_in_flight", "gauge", "Requests being answered now.") +
      sample("animal_store_http_requests_in_flight", "", inFlight);
    if (connections !== undefined) {
      text += familyHeader("animal_store_http_open_connections", "gauge", "Open HTTP connections of the API's listener.") +
        sample("animal_store_http_open_connections", "", await connections());
    }
    return text + droppedText(output) + stores.text() + processText() + plugsText(reports()) + (options.more?.() ?? "");
  }

  return {
    wrap,
    countConnections: (count) => void (connections = count),
    text,
    app: metricsApp(text, output),
    observeStore: stores.observeStore,
    fileStore: stores.fileStore,
    observeSql: stores.observeSql,
    plug: (setup) => {
      reports = setup.reports;
      return { name: "metrics" };
    },
  };
}

const GAUGE_NAME = /^[a-z][a-z0-9_]*$/;

/** The gauges the plugs report, each under its name; a name the format cannot hold is an error (`/metrics` answers 500 and says why). */
function plugsText(reports: readonly NamedReport[]): string {
  let text = "";
  for (const { plug, report } of reports) {
    for (const [name, gauge] of Object.entries(report.gauges ?? {})) {
      if (!GAUGE_NAME.test(name)) throw new TypeError(`The plug "${plug}" reports a gauge named ${JSON.stringify(name)}: a name is lowercase letters, digits and _`);
      text += familyHeader(`animal_store_plug_${name}`, "gauge", gauge.help) + sample(`animal_store_plug_${name}`, "", gauge.value);
    }
  }
  return text;
}

function requestsText(slots: readonly (Slot | undefined)[], routeLabels: readonly string[]): string {
  const labelsOf = (index: number) => `${label("route", routeLabels[Math.floor(index / METHOD_LABELS.length)]!)},${label("method", METHOD_LABELS[index % METHOD_LABELS.length]!)}`;
  let counts = familyHeader("animal_store_http_requests_total", "counter", "Requests answered, by route template, method and status.");
  let durations = familyHeader("animal_store_http_request_duration_seconds", "histogram", "How long requests took to answer, in seconds, by route template and method.");
  slots.forEach((slot, index) => {
    if (slot === undefined) return;
    const labels = labelsOf(index);
    slot.statuses.forEach((answered, offset) => {
      if (answered > 0) counts += sample("animal_store_http_requests_total", `${labels},${label("status", String(offset + 100))}`, answered);
    });
    durations += histogramSamples("animal_store_http_request_duration_seconds", labels, slot.durations);
  });
  return counts + durations;
}

/** The lines the server could not write because its stdout or stderr was closed (`output.ts`). */
function droppedText(output: Output): string {
  return familyHeader("animal_store_log_lines_dropped_total", "counter", "Lines not written because stdout or stderr was closed.") +
    sample("animal_store_log_lines_dropped_total", "", output.dropped());
}

/** The metrics listener's app: `GET /metrics` and nothing else. */
function metricsApp(text: () => Promise<string>, output: Output): App {
  const onError = (error: unknown) => output.err(`animal-store: unexpected error in /metrics: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  async function fetch(request: Request): Promise<Response> {
    const path = splitUrl(request.url)?.path;
    if (path !== METRICS_PATH) return errorResponse("not_found", `Cannot find ${path ?? request.url}: this listener serves ${METRICS_PATH} only`);
    if (request.method !== "GET" && request.method !== "HEAD") {
      return errorResponse("method_not_allowed", `Cannot ${request.method} ${METRICS_PATH}: allowed methods are GET, HEAD`, { allow: "GET, HEAD" });
    }
    const body = await text();
    const headers = { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" };
    if (request.method === "GET") return new Response(body, { headers });
    return new Response(null, { headers: { ...headers, "content-length": String(new TextEncoder().encode(body).byteLength) } });
  }
  return { fetch, onError };
}
