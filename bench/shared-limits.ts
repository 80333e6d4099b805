/**
 * @module
 * Issue 51's numbers for rate limits shared through PostgreSQL: three standalone servers (Bun, Deno
 * and Node by default) on one database, one client sending to them in turn at three times its limit
 * for `BENCH_SECONDS` (60), as behind a round-robin proxy.
 *
 * - `exactness`: what the three allowed against one instance's budget (`burst + rate × seconds`), for
 *   each exchange interval of `BENCH_SYNC_MS` (250, 1000, 5000), with the database's statements per
 *   second over the run (its committed transactions, `pg_stat_database`: the client asks a path the
 *   store never reads, so they are the limiter's); then the same with the counts each instance's
 *   own (`STORE=memory`), as before shared limits.
 * - `stopped`: the same at the default interval, one instance stopped (SIGTERM) half way.
 * - `outage`: the database stopped for `BENCH_OUTAGE_SECONDS` (20) from a quarter of the run:
 *   answers by status, latency before, during and after, and how long after the database's return
 *   each instance said its counts were shared again.
 * - `cost`: `bench/side-by-side.ts` on one instance, list and create, with `RATE_LIMIT` on PostgreSQL
 *   (shared) beside the same on `BENCH_LOCAL_CHECKOUT` (a checkout without shared limits, on a database
 *   of its own): what sharing costs a request.
 *
 * Run from the repository root: `bun bench/shared-limits.ts [exactness|stopped|outage|cost]...` (all by
 * default). `BENCH_RUNTIMES` (`bun,deno,node`), `BENCH_RATE_LIMIT` (`100/s`).
 */
import { join, resolve } from "node:path";
import { SQL } from "bun";
import type { Runtime, ServerProcess } from "../test/server-process.ts";
import type { LoadAnswer, LoadResult } from "../test/shared-load.ts";
import { postgresServer } from "../test/postgres-server.ts";
import { startServer } from "../test/server-process.ts";
import { countOf, oneInstanceBudget, roundRobin } from "../test/shared-load.ts";
import { parseRateLimit } from "../src/plugs/rate-limit/mod.ts";

const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 60);
const OUTAGE_SECONDS = Number(process.env["BENCH_OUTAGE_SECONDS"] ?? 20);
const SYNC_INTERVALS = (process.env["BENCH_SYNC_MS"] ?? "250,1000,5000").split(",").map(Number);
const RUNTIMES = (process.env["BENCH_RUNTIMES"] ?? "bun,deno,node").split(",") as Runtime[];
const RATE_LIMIT = process.env["BENCH_RATE_LIMIT"] ?? "100/s";
const LOCAL_CHECKOUT = process.env["BENCH_LOCAL_CHECKOUT"];
const KEY = "bench-shared-key";
const limit = parseRateLimit(RATE_LIMIT);
if (!limit.ok) throw new Error(`BENCH_RATE_LIMIT ${limit.issues.join("; ")}`);
const perSecond = limit.value.requests / limit.value.seconds;
const burst = limit.value.burst ?? limit.value.requests;

/** Starts the instances on `url` with `settings`. */
function startInstances(settings: Record<string, string>): Promise<ServerProcess[]> {
  return Promise.all(RUNTIMES.map((runtime) => startServer(runtime, { API_KEYS: KEY, RATE_LIMIT, LOG: "off", ...settings })));
}

async function stopAll(servers: readonly ServerProcess[]): Promise<void> {
  await Promise.all(servers.map((server) => server.stop("SIGKILL")));
}

/** Three times the limit, in turn, for `seconds`, to a path the store never reads. */
function load(servers: () => readonly ServerProcess[], seconds: number, during?: (second: number) => void): Promise<LoadResult> {
  return roundRobin({
    bases: () => servers().map((server) => server.url),
    perSecond: 3 * perSecond,
    seconds,
    path: "/openapi.json",
    headers: { authorization: `Bearer ${KEY}` },
    ...(during === undefined ? {} : { during }),
  });
}

/** The database's committed transactions so far. */
async function commits(url: string): Promise<number> {
  const sql = new SQL(url, { max: 1 });
  try {
    const [row] = await sql`select xact_commit::float8 as commits from pg_stat_database where datname = current_database()`;
    return Number(row.commits);
  } finally {
    await sql.close();
  }
}

/** `allowed of budget (+x%)`: what a load allowed beside one instance's budget for its time. */
function allowed(result: LoadResult): string {
  const budget = oneInstanceBudget(perSecond, burst, result.seconds);
  const served = countOf(result, 200);
  return `${served} allowed of ${result.answers.length} sent, one instance's budget ${Math.round(budget)} (${served >= budget ? "+" : ""}${((served / budget - 1) * 100).toFixed(1)}%)`;
}

async function exactness(): Promise<void> {
  const database = await postgresServer();
  for (const syncMs of SYNC_INTERVALS) {
    const url = await database.createDatabase();
    const servers = await startInstances({ STORE: "postgres", DATABASE_URL: url, RATE_LIMIT_SYNC_MS: String(syncMs) });
    try {
      const before = await commits(url);
      const result = await load(() => servers, SECONDS);
      // Pending statistics reach pg_stat_database within a second or so.
      await Bun.sleep(1500);
      const statements = ((await commits(url)) - before) / result.seconds;
      console.log(`shared, RATE_LIMIT_SYNC_MS=${syncMs}: ${allowed(result)}; ${statements.toFixed(1)} database statements/s`);
    } finally {
      await stopAll(servers);
    }
  }
  const servers = await startInstances({ STORE: "memory" });
  try {
    console.log(`each instance alone (STORE=memory): ${allowed(await load(() => servers, SECONDS))}`);
  } finally {
    await stopAll(servers);
  }
}

async function stopped(): Promise<void> {
  const servers = await startInstances({ STORE: "postgres", DATABASE_URL: await (await postgresServer()).createDatabase() });
  try {
    let stopping: Promise<number> | undefined;
    const result = await load(() => servers, SECONDS, (second) => {
      if (second === Math.floor(SECONDS / 2)) stopping = servers.at(-1)!.stop("SIGTERM");
    });
    console.log(`shared, ${RUNTIMES.at(-1)} stopped at ${Math.floor(SECONDS / 2)} s (exit ${await stopping}): ${allowed(result)}, ${countOf(result, 0)} refused connections`);
  } finally {
    await stopAll(servers);
  }
}

/** The median, 99th percentile and largest of the answers' milliseconds. */
function latency(answers: readonly LoadAnswer[]): string {
  const ms = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]?.toFixed(1);
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${ms.at(-1)?.toFixed(1)} ms (${answers.length} answers)`;
}

async function outage(): Promise<void> {
  const database = await postgresServer();
  const servers = await startInstances({ STORE: "postgres", DATABASE_URL: await database.createDatabase() });
  try {
    const started = performance.now();
    const running = load(() => servers, SECONDS);
    await Bun.sleep((SECONDS / 4) * 1000);
    const down = performance.now() - started;
    let up = 0;
    await database.whileStopped(async () => {
      await Bun.sleep(OUTAGE_SECONDS * 1000);
    }).then(() => (up = performance.now() - started));
    const sharedAgain = servers.map(() => -1);
    while (sharedAgain.includes(-1) && performance.now() - started < SECONDS * 1000 + 30_000) {
      servers.forEach((server, i) => {
        if (sharedAgain[i] === -1 && server.output().includes("rate limits are shared again")) sharedAgain[i] = performance.now() - started - up;
      });
      await Bun.sleep(10);
    }
    const result = await running;
    const statuses = Object.entries(Object.groupBy(result.answers, (answer) => String(answer.status))).map(([status, answers]) => `${answers!.length} × ${status}`).join(", ");
    console.log(`database stopped ${(down / 1000).toFixed(1)}-${(up / 1000).toFixed(1)} s of ${result.seconds.toFixed(1)} s: ${statuses}`);
    console.log(`  latency before: ${latency(result.answers.filter((answer) => answer.at < down))}`);
    console.log(`  latency while down: ${latency(result.answers.filter((answer) => answer.at >= down && answer.at < up))}`);
    console.log(`  latency after: ${latency(result.answers.filter((answer) => answer.at >= up))}`);
    console.log(`  shared again after the database's return: ${RUNTIMES.map((runtime, i) => `${runtime} ${sharedAgain[i]! < 0 ? "never" : `${Math.round(sharedAgain[i]!)} ms`}`).join(", ")} (the line is read every 10 ms)`);
  } finally {
    await stopAll(servers);
  }
}

async function cost(): Promise<void> {
  if (LOCAL_CHECKOUT === undefined) throw new Error("cost needs BENCH_LOCAL_CHECKOUT, a checkout without shared limits (its node_modules installed)");
  const database = await postgresServer();
  for (const scenario of ["list", "create"]) {
    console.log(`### ${scenario}`);
    const [shared, local] = [await database.createDatabase(), await database.createDatabase()];
    const settings = (url: string) => `STORE=postgres,DATABASE_URL=${url},RATE_LIMIT=1000000/s`;
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "side-by-side.ts"), "bun", scenario, `local@${resolve(LOCAL_CHECKOUT)}=${settings(local)}`, `shared=${settings(shared)}`], {
      stdout: "inherit",
      stderr: "inherit",
    });
    if ((await child.exited) !== 0) throw new Error(`side-by-side ${scenario} failed`);
  }
}

const SCENARIOS: Record<string, () => Promise<void>> = { exactness, stopped, outage, cost };
const chosen = process.argv.slice(2);
for (const name of chosen.length > 0 ? chosen : ["exactness", "stopped", "outage"]) {
  const scenario = SCENARIOS[name];
  if (scenario === undefined) throw new Error(`no scenario ${name}: ${Object.keys(SCENARIOS).join(", ")}`);
  console.log(name === "cost" ? "## cost (Bun, one instance, RATE_LIMIT no request reaches)" : `## ${name} (${RUNTIMES.join(", ")}; RATE_LIMIT=${RATE_LIMIT}, three times it sent in turn for ${SECONDS} s)`);
  await scenario();
}
process.exit(0);
