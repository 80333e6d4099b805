/**
 * @module
 * Side by side: variants of the project's standalone server (another checkout, other settings)
 * loaded at the same time, each by its own wrk, so that every variant meets the same machine at
 * every instant and their requests/s compare what a request costs each. On this project's shared
 * 2-core machine one server swings by ±30% between interleaved rounds; side by side, single rounds
 * spread by about ±10% (bench/RESULTS.md, "Issue 24, second session"). For A/B of a change, not for
 * the figures of `npm run bench`.
 *
 * Run from the repository root:
 *   bun bench/side-by-side.ts <bun|deno|node> <list|get|create> <variant> <variant> ...
 * where a variant is `name[@checkout]=[NAME=value,...]`, e.g.
 *   bun bench/side-by-side.ts bun get now= off=LOG=off before@../before=
 * Settings: BENCH_SECONDS (3), BENCH_ROUNDS (5). Each server holds 1,000 pets in memory and writes
 * its output to `data/bench/side-<name>.log`.
 */
import { mkdirSync, openSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { GET_ID, KEY } from "./fixtures.ts";
import { median } from "./report.ts";
import { BIN, ROOT, seed } from "./targets.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PATHS: Record<string, string> = { list: "/pets?limit=20", get: `/pets/${GET_ID}`, create: "/pets" };

/** One server to compare. */
interface Variant {
  readonly name: string;
  readonly checkout: string;
  readonly settings: Record<string, string>;
}

/** A variant from `name[@checkout]=[NAME=value,...]`. */
function parseVariant(text: string): Variant {
  const match = /^([\w.-]+)(?:@([^=]+))?=(.*)$/.exec(text);
  if (match === null) throw new Error(`a variant is name[@checkout]=[NAME=value,...], got ${JSON.stringify(text)}`);
  const settings = Object.fromEntries(match[3]!.split(",").filter((pair) => pair !== "").map((pair) => pair.split("=", 2) as [string, string]));
  return { name: match[1]!, checkout: resolve(match[2] ?? ROOT), settings };
}

/** The command that runs the standalone server of a checkout on a runtime. */
function serverCommand(runtime: string): string[] {
  if (runtime === "bun") return [join(BIN, "bun"), "adapters/server/start-bun.ts"];
  if (runtime === "deno") return [join(BIN, "deno"), "run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "adapters/server/start-deno.ts"];
  return ["node", "--import", "tsx", "adapters/server/start-node.ts"];
}

/** Starts a variant's server, waits until it listens, and seeds it. */
async function startVariant(runtime: string, variant: Variant): Promise<{ url: string; stop: () => void }> {
  const output = join(ROOT, "data", "bench", `side-${variant.name}.log`);
  const env = { ...process.env, PORT: "0", API_KEYS: KEY, STORE: "memory", ...variant.settings };
  const child = Bun.spawn(serverCommand(runtime), { cwd: variant.checkout, env, stdout: openSync(output, "w"), stderr: "inherit" });
  const started = Date.now();
  let url: string | undefined;
  while ((url = /listening on (\S+)/.exec(readFileSync(output, "utf8"))?.[1]) === undefined) {
    if (child.exitCode !== null || Date.now() - started > 60_000) throw new Error(`${variant.name} did not start: ${readFileSync(output, "utf8")}`);
    await Bun.sleep(50);
  }
  await seed(url, 1000);
  return { url, stop: () => child.kill("SIGKILL") };
}

/** Loads every URL at once for `seconds`, each with its own wrk; requests/s by URL, in order. */
async function loadTogether(urls: readonly string[], scenario: string, seconds: number): Promise<number[]> {
  const runs = urls.map((url) => {
    const argv = ["wrk", "-t1", "-c16", `-d${seconds}s`, "-H", `Authorization: Bearer ${KEY}`];
    if (scenario === "create") argv.push("-s", join(import.meta.dir, "post.lua"));
    return new Response(Bun.spawn([...argv, url + PATHS[scenario]]).stdout).text();
  });
  return (await Promise.all(runs)).map((text) => Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN));
}

const [runtime, scenario, ...specs] = process.argv.slice(2);
if (runtime === undefined || !["bun", "deno", "node"].includes(runtime) || scenario === undefined || PATHS[scenario] === undefined || specs.length < 2) {
  console.error("usage: bun bench/side-by-side.ts <bun|deno|node> <list|get|create> <name[@checkout]=[NAME=value,...]> <...> (two or more)");
  process.exit(2);
}
const variants = specs.map(parseVariant);
mkdirSync(join(ROOT, "data", "bench"), { recursive: true });
const servers = await Promise.all(variants.map((variant) => startVariant(runtime, variant)));
try {
  const urls = servers.map((server) => server.url);
  await loadTogether(urls, scenario, 1);
  const rounds: number[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    rounds.push(await loadTogether(urls, scenario, SECONDS));
    console.log(`round ${round}: ${variants.map((variant, i) => `${variant.name} ${Math.round(rounds.at(-1)![i]!)}`).join(", ")}`);
  }
  const first = variants[0]!.name;
  for (const [i, variant] of variants.entries()) {
    const rates = rounds.map((round) => round[i]!);
    const ratios = rounds.map((round) => round[i]! / round[0]!);
    console.log(`${variant.name}: median ${Math.round(median(rates)).toLocaleString("en-US")} req/s, ${median(ratios).toFixed(2)} of ${first} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
  }
} finally {
  for (const server of servers) server.stop();
}
