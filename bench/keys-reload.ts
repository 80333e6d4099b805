/**
 * @module
 * Reloads under load (issue 50): wrk at full speed on the list, with SIGHUP every second, the key file
 * rewritten before each (two versions, swapped in by a rename, each holding the benchmark's key and the
 * others changing), against the same load without a signal: rounds of 5 s without, then 5 s with, 30 s
 * with signals in all (`BENCH_SECONDS`), so both meet the same machine. Prints the median requests/s of
 * each and of their ratio by round, wrk's non-2xx answers and socket errors over all rounds (a dropped
 * connection is one), and the reload lines the server printed. The server is pinned to one core and wrk
 * to the other, as `side-by-side.ts` runs them; `BENCH_KEYS` (10) keys in each version, or 100,000 to see
 * what reading so many a second costs.
 *
 *   bun bench/keys-reload.ts [bun|deno|node ...]
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KEY } from "./fixtures.ts";
import { PINNED_PATHS, startPinned } from "./pinned.ts";
import type { Runtime } from "./targets.ts";
import { ROOT, runArgv } from "./targets.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
/** How long each round's two loads run: without signals, then with. */
const ROUND_SECONDS = 5;
const KEYS = Number(process.env.BENCH_KEYS ?? 10);
const FOLDER = join(ROOT, "data", "bench");

/** A version of the key file: the benchmark's key, and `count - 1` others of the version's own. */
function version(tag: string, count: number): string {
  const lines = [`bench sha256:${createHash("sha256").update(KEY).digest("hex")}`];
  for (let i = 1; i < count; i++) lines.push(`${tag}-${i} sha256:${randomBytes(32).toString("hex")}`);
  return `${lines.join("\n")}\n`;
}

/** What one wrk run said. */
interface Load {
  readonly rate: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly socketErrors: string;
}

/** wrk from the load core on the list for `seconds`, 16 connections, as `side-by-side.ts` loads. */
async function load(url: string, seconds: number): Promise<Load> {
  const text = await new Response(Bun.spawn(["taskset", "-c", "0", "wrk", "-t1", "-c16", `-d${seconds}s`, "-H", `Authorization: Bearer ${KEY}`, url + PINNED_PATHS["list"]]).stdout).text();
  return {
    rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]),
    requests: Number(/(\d+) requests in/.exec(text)?.[1]),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
    socketErrors: /Socket errors: (.*)/.exec(text)?.[1] ?? "none",
  };
}

async function measure(runtime: Runtime): Promise<string> {
  const path = join(FOLDER, `keys-reload-${runtime}`);
  const versions = [version("a", KEYS), version("b", KEYS)];
  writeFileSync(path, versions[0]!, { mode: 0o600 });
  const output = join(FOLDER, `keys-reload-${runtime}.log`);
  const server = await startPinned(runArgv(runtime, `adapters/server/start-${runtime}.ts`), {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", STORE: "memory", PETS: "1000", API_KEYS: "", API_KEYS_FILE: path },
    output,
    seed: true,
  });
  try {
    await load(server.url, 2);
    const quiet: Load[] = [];
    const reloading: Load[] = [];
    let sent = 0;
    for (let round = 0; round < SECONDS / ROUND_SECONDS; round++) {
      quiet.push(await load(server.url, ROUND_SECONDS));
      let signalling = true;
      const signals = (async () => {
        while (signalling) {
          writeFileSync(`${path}.new`, versions[++sent % 2]!, { mode: 0o600 });
          renameSync(`${path}.new`, path);
          server.process.kill("SIGHUP");
          await Bun.sleep(1000);
        }
      })();
      reloading.push(await load(server.url, ROUND_SECONDS));
      signalling = false;
      await signals;
    }
    const log = readFileSync(output, "utf8");
    const reloads = (log.match(/^reloaded API_KEYS_FILE/gm) ?? []).length;
    const notReloaded = (log.match(/not reloaded/g) ?? []).length;
    const cell = (runs: Load[]) =>
      `${Math.round(median(runs.map((run) => run.rate))).toLocaleString("en-US")} req/s, ${sum(runs.map((run) => run.non2xx))} non-2xx of ` +
      `${sum(runs.map((run) => run.requests)).toLocaleString("en-US")}, socket errors: ${[...new Set(runs.map((run) => run.socketErrors))].join("; ")}`;
    const ratios = reloading.map((run, i) => run.rate / quiet[i]!.rate);
    return `| ${runtime} | ${KEYS.toLocaleString("en-US")} | ${cell(quiet)} | ${cell(reloading)} | ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ${sent} sent, ${reloads} reloaded, ${notReloaded} not |`;
  } finally {
    server.process.kill("SIGKILL");
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

mkdirSync(FOLDER, { recursive: true });
console.log(`wrk -t1 -c16 on GET /v1/pets?limit=20, 1,000 pets: ${SECONDS / ROUND_SECONDS} rounds of ${ROUND_SECONDS} s without a signal, then ${ROUND_SECONDS} s with SIGHUP every second`);
console.log("| runtime | keys | without a signal | with SIGHUP every second | ratio by round | signals |\n|---|---|---|---|---|---|");
const runtimes = (process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["bun", "deno", "node"]) as Runtime[];
for (const runtime of runtimes) console.log(await measure(runtime));
