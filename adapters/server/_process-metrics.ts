/**
 * @module
 * Private to the metrics: the process's own: memory, start time and uptime, and a build-info gauge
 * naming the service's version and the runtime it runs on. Read when Prometheus scrapes.
 */
import process from "node:process";
import { VERSION } from "./_version.ts";
import { familyHeader, label, sample } from "./_metric-kinds.ts";

/** The runtime this process runs on, and its version. */
export function runtimeOf(): { readonly name: string; readonly version: string } {
  const { versions } = process;
  // Bun and Deno also report a `node` version (the one they are compatible with): ask for theirs first.
  if (versions["bun"] !== undefined) return { name: "bun", version: versions["bun"] };
  if (versions["deno"] !== undefined) return { name: "deno", version: versions["deno"] };
  return { name: "node", version: versions.node };
}

/** The process families in the text format. */
export function processText(): string {
  const memory = process.memoryUsage();
  const uptime = process.uptime();
  const runtime = runtimeOf();
  return familyHeader("process_resident_memory_bytes", "gauge", "Resident memory of the process, in bytes.") +
    sample("process_resident_memory_bytes", "", memory.rss) +
    familyHeader("process_heap_bytes", "gauge", "JavaScript heap in use, in bytes.") +
    sample("process_heap_bytes", "", memory.heapUsed) +
    familyHeader("process_start_time_seconds", "gauge", "When the process started, in seconds since the Unix epoch.") +
    sample("process_start_time_seconds", "", Math.floor(Date.now() - uptime * 1000) / 1000) +
    familyHeader("animal_store_uptime_seconds", "gauge", "Seconds since the process started.") +
    sample("animal_store_uptime_seconds", "", Math.round(uptime * 1000) / 1000) +
    familyHeader("animal_store_build_info", "gauge", "Always 1; the labels name the service's version and the runtime.") +
    sample("animal_store_build_info", [label("version", VERSION), label("runtime", runtime.name), label("runtime_version", runtime.version)].join(","), 1);
}
