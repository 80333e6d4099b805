/**
 * @module
 * 100,000 keys in a key file (issue 50): how long the standalone server takes to load them, and how much
 * more resident memory it then holds, at a start and at a reload, on Bun, Deno and Node. Writes a key file
 * of one key (the benchmark's) and one of 100,000 hashed keys (the benchmark's among them) to
 * `data/bench/`, which `side-by-side.ts` can then serve (`API_KEYS=,API_KEYS_FILE=data/bench/keys-100000`).
 *
 * - Start: the server started on each file; the time from the spawn to its `listening on` line, and its
 *   RSS once it has listened for 3 s, one file against the other.
 * - Reload: a server started on the one-key file; the file replaced by the 100,000 keys and SIGHUP sent;
 *   the time to its `reloaded` line, and the RSS it holds 3 s later above what it held before, and at
 *   its highest meanwhile (sampled every 5 ms); then once more, 100,000 other keys.
 *
 *   bun bench/keys-load.ts [bun|deno|node ...]     (BENCH_ROUNDS, default 3: the median is printed)
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KEY } from "./fixtures.ts";
import type { Runtime } from "./targets.ts";
import { ROOT, runArgv } from "./targets.ts";

const FOLDER = join(ROOT, "data", "bench");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** A key file: the benchmark's key, then `count - 1` random ones, each hashed, with a name, as `animal-store key` writes them. */
function keyFile(path: string, count: number): void {
  const lines = [`bench sha256:${hex(KEY)}`];
  for (let i = 1; i < count; i++) lines.push(`client-${String(i).padStart(6, "0")} sha256:${randomBytes(32).toString("hex")}${i % 10 === 0 ? " scope=read" : ""}`);
  writeFileSync(`${path}.new`, `${lines.join("\n")}\n`, { mode: 0o600 });
  renameSync(`${path}.new`, path);
}

/** The resident memory of a process, in MiB. */
function rss(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;
}

/** How long a server is left idle before its RSS is read: its collector may give back what a load took. */
const SETTLE_MS = 3000;

/** The highest RSS of a process, sampled every 5 ms until `until` settles; and what `until` gave. */
async function peakDuring<T>(pid: number, until: Promise<T>): Promise<{ peak: number; value: T }> {
  let peak = rss(pid);
  let done = false;
  const value = until.finally(() => (done = true));
  while (!done) {
    peak = Math.max(peak, rss(pid));
    await Bun.sleep(5);
  }
  return { peak, value: await value };
}

/** Waits until `file` holds `count` lines matching `pattern`; the ms it took from `since`. */
async function printed(file: string, pattern: RegExp, count: number, since: number): Promise<number> {
  for (;;) {
    if ((readFileSync(file, "utf8").match(pattern) ?? []).length >= count) return performance.now() - since;
    if (performance.now() - since > 60_000) throw new Error(`nothing matching ${pattern} in ${file}:\n${readFileSync(file, "utf8")}`);
    await Bun.sleep(2);
  }
}

/** Starts the server on a key file; the ms to its listening line, its pid, its output file. */
async function start(runtime: Runtime, keys: string, name: string): Promise<{ ms: number; child: ReturnType<typeof Bun.spawn>; output: string }> {
  const output = join(FOLDER, `keys-load-${runtime}-${name}.log`);
  const started = performance.now();
  const child = Bun.spawn(runArgv(runtime, `adapters/server/start-${runtime}.ts`), {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", STORE: "memory", LOG: "off", API_KEYS: "", API_KEYS_FILE: keys },
    stdout: openSync(output, "w"),
    stderr: "inherit",
  });
  return { ms: await printed(output, /listening on/g, 1, started), child, output };
}

const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;

/** One runtime's figures: start with 1 and 100,000 keys, and two reloads. */
async function measure(runtime: Runtime, one: string, many: string, other: string): Promise<string> {
  const figures = {
    startOne: [] as number[], startMany: [] as number[], rssOne: [] as number[], rssMany: [] as number[],
    reload: [] as number[], reloadRss: [] as number[], reloadPeak: [] as number[], again: [] as number[], againRss: [] as number[], againPeak: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [file, ms, memory] of [[one, figures.startOne, figures.rssOne], [many, figures.startMany, figures.rssMany]] as const) {
      const server = await start(runtime, file, "start");
      ms.push(server.ms);
      await Bun.sleep(SETTLE_MS);
      memory.push(rss(server.child.pid));
      server.child.kill("SIGKILL");
    }
    // A reload from one key to 100,000, then to 100,000 others.
    const reloading = join(FOLDER, `keys-reloading-${runtime}`);
    writeFileSync(reloading, readFileSync(one), { mode: 0o600 });
    const server = await start(runtime, reloading, "reload");
    await Bun.sleep(SETTLE_MS);
    const before = rss(server.child.pid);
    const reloads = [[many, figures.reload, figures.reloadRss, figures.reloadPeak, 1], [other, figures.again, figures.againRss, figures.againPeak, 2]] as const;
    for (const [source, ms, memory, peaks, count] of reloads) {
      writeFileSync(`${reloading}.new`, readFileSync(source), { mode: 0o600 });
      renameSync(`${reloading}.new`, reloading);
      // Written well before the signal: a file written a moment ago is read once it has stayed so 100 ms.
      await Bun.sleep(300);
      const sent = performance.now();
      server.child.kill("SIGHUP");
      const { peak, value } = await peakDuring(server.child.pid, printed(server.output, /reloaded API_KEYS_FILE/g, count, sent).then(async (took) => (await Bun.sleep(SETTLE_MS), took)));
      ms.push(value);
      peaks.push(peak - before);
      memory.push(rss(server.child.pid) - before);
    }
    server.child.kill("SIGKILL");
  }
  const f = (values: number[], unit: string) => `${median(values).toFixed(unit === "ms" ? 0 : 1)} ${unit}`;
  return `| ${runtime} | ${f(figures.startOne, "ms")} / ${f(figures.startMany, "ms")} (+${(median(figures.startMany) - median(figures.startOne)).toFixed(0)} ms) | ` +
    `${f(figures.rssOne, "MiB")} / ${f(figures.rssMany, "MiB")} (+${(median(figures.rssMany) - median(figures.rssOne)).toFixed(1)} MiB) | ` +
    `${f(figures.reload, "ms")}; +${f(figures.reloadRss, "MiB")} (at most +${f(figures.reloadPeak, "MiB")}) | ${f(figures.again, "ms")}; +${f(figures.againRss, "MiB")} (at most +${f(figures.againPeak, "MiB")}) |`;
}

mkdirSync(FOLDER, { recursive: true });
const one = join(FOLDER, "keys-1");
const many = join(FOLDER, "keys-100000");
const other = join(FOLDER, "keys-100000-other");
keyFile(one, 1);
keyFile(many, 100_000);
keyFile(other, 100_000);
console.log(`key files: 1 key ${readFileSync(one).length} bytes, 100,000 keys ${(readFileSync(many).length / 1024 / 1024).toFixed(1)} MiB; ${ROUNDS} rounds, medians`);
console.log("| runtime | start, 1 / 100,000 keys | RSS 3 s after listening, 1 / 100,000 keys | reload 1 → 100,000 keys: time to its line; RSS added 3 s later (at its highest) | reload 100,000 → 100,000 others |");
console.log("|---|---|---|---|---|");
const runtimes = (process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["bun", "deno", "node"]) as Runtime[];
for (const runtime of runtimes) console.log(await measure(runtime, one, many, other));
