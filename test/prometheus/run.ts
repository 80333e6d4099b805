/**
 * @module
 * The metrics as a real Prometheus sees them. Run from the repository root with
 * `npm run test:prometheus`; it needs Debian's `prometheus` package (`prometheus` and `promtool` on
 * the PATH), which `.ci/run` installs, and installs nothing itself.
 *
 * Starts the standalone server (Bun, the JSON-file store, a rate limit, metrics on a port of their
 * own), checks a scrape with `promtool check metrics`, starts Prometheus on 127.0.0.1 with a scrape
 * config pointing at the server (1 s interval, its own temporary storage), sends traffic, and asks
 * Prometheus's HTTP API for `rate(...)` and `histogram_quantile(...)` by route. Ends with
 * `prometheus: N passed, M failed`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createChecks, freePort, waitFor } from "../checks.ts";

const ROOT = join(import.meta.dir, "..", "..");
const KEY = "prometheus-check-key";
const AUTH = { authorization: `Bearer ${KEY}` };
/** How long any one wait may take: the server's start, Prometheus's start, a query's answer. */
const WAIT_MS = 45_000;

const { check, fail, anyFailed, finish } = createChecks("prometheus");

/** A started process, its output so far, and how to stop it. */
interface Started {
  readonly process: Subprocess<"ignore", "pipe", "pipe">;
  output(): string;
}

function spawn(argv: string[], env: Record<string, string> = {}): Started {
  const child = Bun.spawn(argv, { cwd: ROOT, env: { ...process.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) {
    void (async () => {
      for await (const chunk of stream) output += new TextDecoder().decode(chunk);
    })();
  }
  return { process: child, output: () => output };
}

/** One instant query through Prometheus's HTTP API: its result vector. */
async function query(prometheus: string, promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const response = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] }; error?: string };
  if (body.status !== "success" || body.data === undefined) throw new Error(`${promql}: ${body.error ?? response.status}`);
  return body.data.result;
}

/** Waits until a query gives a finite, positive value for each of `routes`; returns them by route. */
async function valuesByRoute(prometheus: string, promql: string, routes: readonly string[]): Promise<Map<string, number>> {
  return await waitFor(`${promql} for ${routes.join(", ")}`, async () => {
    const values = new Map((await query(prometheus, promql)).map((sample) => [sample.metric["route"] ?? "", Number(sample.value[1])]));
    return routes.every((route) => Number.isFinite(values.get(route)) && values.get(route)! > 0) ? values : undefined;
  }, WAIT_MS);
}

/** Keeps sending a mix of requests until `until`: creates, lists, gets, misses, unauthenticated, over the limit. */
async function sendTraffic(base: string, until: number): Promise<number> {
  let sent = 0;
  while (Date.now() < until) {
    const created = await fetch(`${base}/pets`, { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' });
    const id = created.status === 201 ? ((await created.json()) as { id: number }).id : 1;
    await Promise.all([
      fetch(`${base}/pets?limit=5`, { headers: AUTH }).then((response) => response.arrayBuffer()),
      fetch(`${base}/pets/${id}`, { headers: AUTH }).then((response) => response.arrayBuffer()),
      fetch(`${base}/pets/999999`, { headers: AUTH }).then((response) => response.arrayBuffer()),
      fetch(`${base}/pets`).then((response) => response.arrayBuffer()),
    ]);
    sent += 5;
    await Bun.sleep(20);
  }
  return sent;
}

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "animal-store-prometheus-"));
  const running: Started[] = [];
  try {
    await check("prometheus and promtool are installed (apt-get install prometheus)", () => {
      for (const tool of ["prometheus", "promtool"]) if (Bun.which(tool) === null) throw new Error(`${tool} is not on the PATH`);
    });
    if (anyFailed()) return;

    // The limit is low enough that the traffic gets some 429s, so their rate shows too.
    const server = spawn([join(ROOT, "node_modules", ".bin", "bun"), "adapters/server/start-bun.ts"], {
      PORT: "0", METRICS_PORT: "0", HOST: "127.0.0.1", STORE: "file", DATA_FILE: join(folder, "pets.json"), API_KEYS: KEY, LOG: "off", RATE_LIMIT: "100/s,burst=50",
    });
    running.push(server);
    const base = await waitFor("the server's URL", () => /listening on (http:\/\/\S+)/.exec(server.output())?.[1], WAIT_MS);
    const metrics = /metrics on (http:\/\/\S+)/.exec(server.output())?.[1] ?? "";
    console.log(`server: ${base}, metrics: ${metrics}`);

    await check("a scrape passes promtool check metrics", async () => {
      await fetch(`${base}/pets`, { headers: AUTH });
      const scrape = await (await fetch(metrics)).text();
      const promtool = Bun.spawnSync(["promtool", "check", "metrics"], { stdin: new TextEncoder().encode(scrape), stdout: "pipe", stderr: "pipe" });
      const said = promtool.stdout.toString() + promtool.stderr.toString();
      if (promtool.exitCode !== 0 || said.trim() !== "") throw new Error(`promtool check metrics exited ${promtool.exitCode}:\n${said}`);
    });

    const port = await freePort();
    const prometheus = `http://127.0.0.1:${port}`;
    const target = new URL(metrics);
    writeFileSync(join(folder, "prometheus.yml"), [
      "global:",
      "  scrape_interval: 1s",
      "  evaluation_interval: 1s",
      "scrape_configs:",
      "  - job_name: animal-store",
      `    metrics_path: ${target.pathname}`,
      "    static_configs:",
      `      - targets: ["${target.host}"]`,
      "",
    ].join("\n"));
    running.push(spawn([
      "prometheus",
      `--config.file=${join(folder, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(folder, "tsdb")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ]));
    await check("Prometheus starts and scrapes the server: the target is up", async () => {
      await waitFor("Prometheus to answer", () => fetch(`${prometheus}/-/ready`).then((response) => (response.ok ? true : undefined), () => undefined), WAIT_MS);
      await waitFor("up == 1", async () => ((await query(prometheus, 'up{job="animal-store"}'))[0]?.value[1] === "1" ? true : undefined), WAIT_MS);
    });

    const sent = await sendTraffic(base, Date.now() + 6000);
    console.log(`sent ${sent} requests`);

    await check("rate() of requests by route finds /v1/pets and /v1/pets/{petId}", async () => {
      const rates = await valuesByRoute(prometheus, "sum by (route) (rate(animal_store_http_requests_total[10s]))", ["/v1/pets", "/v1/pets/{petId}"]);
      console.log(`  requests/s by route: ${[...rates].map(([route, rate]) => `${route} ${rate.toFixed(1)}`).join(", ")}`);
    });
    await check("histogram_quantile(0.99, ...) of latency by route finds /v1/pets and /v1/pets/{petId}", async () => {
      const quantiles = await valuesByRoute(
        prometheus,
        "histogram_quantile(0.99, sum by (route, le) (rate(animal_store_http_request_duration_seconds_bucket[10s])))",
        ["/v1/pets", "/v1/pets/{petId}"],
      );
      console.log(`  p99 seconds by route: ${[...quantiles].map(([route, value]) => `${route} ${value.toFixed(4)}`).join(", ")}`);
    });
    await check("the rate of 429 answers and the file store's fsync latency are there to graph", async () => {
      await waitFor("429s", async () => ((await query(prometheus, 'sum(rate(animal_store_http_requests_total{status="429"}[10s])) > 0')).length > 0 ? true : undefined), WAIT_MS);
      await waitFor("fsync p50", async () => {
        const [sample] = await query(prometheus, "histogram_quantile(0.5, rate(animal_store_file_fsync_duration_seconds_bucket[10s]))");
        return sample !== undefined && Number.isFinite(Number(sample.value[1])) ? true : undefined;
      }, WAIT_MS);
    });
  } finally {
    for (const started of running.reverse()) {
      started.process.kill("SIGTERM");
      await started.process.exited;
    }
    rmSync(folder, { recursive: true, force: true });
  }
}

await main().catch((error: unknown) => fail("the check stopped", error));
finish();
