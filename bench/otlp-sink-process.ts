/**
 * @module
 * Starting `otlp-sink.ts` as a process of its own, for the benchmarks that trace (`http.ts`,
 * `side-by-side.ts`): a target given `OTEL_EXPORTER_OTLP_ENDPOINT=sink` exports to it.
 */
import { openSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A running sink. */
export interface Sink {
  readonly url: string;
  stop(): void;
}

/** The settings with each `sink` value replaced by the sink's URL. */
export function withSink(settings: Record<string, string>, sink: Sink | undefined): Record<string, string> {
  const entries = Object.entries(settings).map(([name, value]): [string, string] => {
    if (value !== "sink") return [name, value];
    if (sink === undefined) throw new Error(`${name}=sink needs the OTLP sink started`);
    return [name, sink.url];
  });
  return Object.fromEntries(entries);
}

/** Starts the sink (`prefix` before its command, e.g. `taskset -c 0`), writing to `output`, and waits for its URL. */
export async function startSink(output: string, prefix: readonly string[] = []): Promise<Sink> {
  const child = Bun.spawn([...prefix, process.execPath, join(import.meta.dir, "otlp-sink.ts")], { stdout: openSync(output, "w"), stderr: "inherit" });
  const started = Date.now();
  let url: string | undefined;
  while ((url = /OTLP sink on (\S+)/.exec(readFileSync(output, "utf8"))?.[1]) === undefined) {
    if (child.exitCode !== null || Date.now() - started > 30_000) throw new Error(`the OTLP sink did not start: ${readFileSync(output, "utf8")}`);
    await Bun.sleep(50);
  }
  return { url, stop: () => child.kill("SIGKILL") };
}
