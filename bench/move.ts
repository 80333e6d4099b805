/**
 * @module
 * Moving pets benchmark: `animal-store export | animal-store import` with 1,000,000 pets (set
 * `BENCH_PETS`), from a JSON file into PostgreSQL and back, on Bun as `npm start` runs it. Prints
 * each command's time, pets per second and peak RSS (each command's own, from the kernel), and the
 * two goals: an import into PostgreSQL at ≥ 50,000 pets/s, one into a JSON file at ≤ 100 MB.
 *
 * Run with `bun bench/move.ts`. It starts the PostgreSQL the tests use (`fsync` on), or uses
 * `DATABASE_URL` when set (an empty database).
 */
import { mkdirSync, openSync, rmSync, writeSync, closeSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { JOURNAL_HEADER } from "../adapters/json-file-store/_journal.ts";
import { postgresServer } from "../test/postgres-server.ts";

const PETS = Number(process.env["BENCH_PETS"] ?? 1_000_000);
const FOLDER = join("data", "bench-move");
// The bun running this script, so it runs without bun on PATH (`node_modules/.bin/bun bench/move.ts`).
const START = [process.execPath, "adapters/server/start-bun.ts"];

/** Writes a data file of `count` pets as the JSON-file store writes them. */
function writeDataFile(path: string, count: number): void {
  const file = openSync(path, "w");
  let chunk = `${JOURNAL_HEADER}\n`;
  for (let id = 1; id <= count; id++) {
    chunk += `${JSON.stringify(id % 3 === 0 ? { id, name: `pet number ${id}`, categoryId: id % 17, status: "sold" } : { id, name: `pet number ${id}`, categoryId: id % 17 })}\n`;
    if (chunk.length > 1 << 20) writeSync(file, chunk), (chunk = "");
  }
  writeSync(file, chunk);
  closeSync(file);
}

/** What one command of a pipe measured. */
interface Measured {
  readonly seconds: number;
  readonly peakMiB: number;
  readonly output: string;
}

/** Runs `from | to` (each under `/usr/bin/time`, for its peak RSS) and measures both. */
async function pipe(from: readonly string[], to: readonly string[]): Promise<[Measured, Measured]> {
  const timed = (args: readonly string[]) => ["/usr/bin/time", "-f", "peak-rss-kib %M", ...START, ...args];
  const started = performance.now();
  const exporter = Bun.spawn(timed(from), { stdout: "pipe", stderr: "pipe" });
  const importer = Bun.spawn(timed(to), { stdin: exporter.stdout, stdout: "pipe", stderr: "pipe" });
  const finish = async (child: typeof exporter | typeof importer, outputs: ReadableStream<Uint8Array>[]): Promise<Measured> => {
    const output = (await Promise.all(outputs.map((stream) => new Response(stream).text()))).join("");
    const code = await child.exited;
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`a command exited ${code}:\n${output}`);
    return { seconds, peakMiB: Number(/peak-rss-kib (\d+)/.exec(output)?.[1] ?? 0) / 1024, output };
  };
  return await Promise.all([finish(exporter, [exporter.stderr]), finish(importer, [importer.stdout, importer.stderr])]);
}

function row(direction: string, command: string, measured: Measured): string {
  const rate = Math.round(PETS / measured.seconds).toLocaleString("en");
  return `| ${direction} | ${command} | ${measured.seconds.toFixed(1)} s | ${rate} | ${Math.round(measured.peakMiB)} MiB |`;
}

rmSync(FOLDER, { recursive: true, force: true });
mkdirSync(FOLDER, { recursive: true });
const source = join(FOLDER, "pets.json");
const back = join(FOLDER, "back.json");
writeDataFile(source, PETS);
const url = process.env["DATABASE_URL"] ?? (await (await postgresServer()).createDatabase());
const database = ["--store", "postgres", "--database-url", url];
console.log(`load average at the start: ${loadavg().map((load) => load.toFixed(2)).join(", ")}`);
const [outExport, outImport] = await pipe(["export", "--data-file", source], ["import", ...database]);
const [backExport, backImport] = await pipe(["export", ...database], ["import", "--data-file", back]);
const sums = new Set([outExport, outImport, backExport, backImport].flatMap((measured) => [...measured.output.matchAll(/sha256 ([0-9a-f]{64})/g)].map((match) => match[1])));
if (sums.size !== 1) throw new Error(`the checksums differ: ${[...sums].join(", ")}`);
console.log(`${PETS.toLocaleString("en")} pets, Bun ${Bun.version}, one checksum on every side`);
console.log("| Direction | Command | Time | Pets/s | Peak RSS |");
console.log("|---|---|---|---|---|");
console.log(row("file → PostgreSQL", "export --data-file", outExport));
console.log(row("file → PostgreSQL", "import --store postgres", outImport));
console.log(row("PostgreSQL → file", "export --store postgres", backExport));
console.log(row("PostgreSQL → file", "import --data-file", backImport));
const importRate = PETS / outImport.seconds;
const fileMegabytes = (backImport.peakMiB * 1024 * 1024) / 1e6;
console.log(`goals: import into PostgreSQL ${Math.round(importRate).toLocaleString("en")} pets/s (≥ 50,000: ${importRate >= 50_000 ? "met" : "NOT met"}), ` +
  `import into a JSON file ${Math.round(fileMegabytes)} MB peak RSS (≤ 100 MB: ${fileMegabytes <= 100 ? "met" : "NOT met"})`);
console.log(`load average at the end: ${loadavg().map((load) => load.toFixed(2)).join(", ")}`);
rmSync(FOLDER, { recursive: true, force: true });
process.exit(0);
