/**
 * @module
 * What a CPU profile says of where a server's time went while it was loaded: the main thread's self
 * time per function from a `.cpuprofile` (what `--cpu-prof` on Bun and Node and the inspector's
 * `Profiler.stop` on Deno write), grouped by where each function lives; and the whole process's CPU
 * by where it ran, from `perf report --sort dso`.
 */
import { median } from "./report.ts";

/** A `.cpuprofile`: the call tree's nodes, the node each sample fell in, and the time between samples (µs). */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** One node of the call tree: a function, at one place in it. */
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

/** Where a sampled function lives: the project's code, the runtime's (JavaScript or native), or no function. */
export type Origin = "project" | "runtime" | "idle" | "garbage collector" | "program";

/** A function's self time in the window, in µs. */
export interface FunctionTime {
  readonly name: string;
  readonly origin: Origin;
  readonly micros: number;
}

/**
 * Each function's self time over the samples taken from `from` to `to` (µs on the profile's own
 * clock), most first; `root` is the checkout whose `src/` and `adapters/` are the project's code.
 * Every sample counts for the median time between samples: JavaScriptCore samples only while
 * JavaScript runs, so a time to the next sample can hold idle time too.
 */
export function selfTimes(profile: CpuProfile, from: number, to: number, root: string): FunctionTime[] {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, FunctionTime>();
  const span = median(profile.timeDeltas.slice(1));
  let time = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    time += profile.timeDeltas[i] ?? 0;
    const node = nodes.get(id);
    if (node === undefined || time < from || time >= to || node.callFrame.functionName === "(root)") continue;
    const origin = originOf(node, root);
    const name = nameOf(node, root);
    const key = `${origin} ${name}`;
    totals.set(key, { name, origin, micros: (totals.get(key)?.micros ?? 0) + span });
  }
  return [...totals.values()].sort((a, b) => b.micros - a.micros);
}

/** The self time of each origin, in µs. */
export function timeByOrigin(times: readonly FunctionTime[]): Record<Origin, number> {
  const byOrigin: Record<Origin, number> = { project: 0, runtime: 0, idle: 0, "garbage collector": 0, program: 0 };
  for (const { origin, micros } of times) byOrigin[origin] += micros;
  return byOrigin;
}

function originOf(node: ProfileNode, root: string): Origin {
  const { functionName, url } = node.callFrame;
  if (functionName === "(idle)") return "idle";
  if (functionName === "(garbage collector)") return "garbage collector";
  if (functionName === "(program)") return "program";
  const path = pathOf(url);
  return path.startsWith(`${root}/src/`) || path.startsWith(`${root}/adapters/`) ? "project" : "runtime";
}

/** `name (file:line)`, the file relative to the checkout when it is the project's. */
function nameOf(node: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const path = pathOf(url);
  if (path === "") return functionName === "" ? "(anonymous)" : functionName;
  const file = path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path.slice(path.lastIndexOf("/") + 1);
  return `${functionName === "" ? "(anonymous)" : functionName} (${file}:${lineNumber + 1})`;
}

function pathOf(url: string): string {
  return url.startsWith("file://") ? decodeURIComponent(url.slice("file://".length)) : url;
}

/** Where a process's CPU went, as `perf report` names what ran. */
export type Place = "kernel" | "runtime native" | "JIT-compiled JavaScript" | "libc" | "other";

/**
 * The process's CPU share of each place, in per cent, from the text of `perf report --sort dso
 * --stdio` (lines such as `    48.03%  bun.exe`); `binary` is the runtime's own executable.
 */
export function cpuByPlace(report: string, binary: string): Record<Place, number> {
  const shares: Record<Place, number> = { kernel: 0, "runtime native": 0, "JIT-compiled JavaScript": 0, libc: 0, other: 0 };
  for (const line of report.split("\n")) {
    const match = /^\s+([\d.]+)%\s+(\S.*?)\s*$/.exec(line);
    if (match === null) continue;
    shares[placeOf(match[2]!, binary)] += Number(match[1]);
  }
  return shares;
}

function placeOf(dso: string, binary: string): Place {
  if (dso === "[kernel.kallsyms]") return "kernel";
  if (dso.startsWith("[JIT]") || dso.startsWith("perf-") || dso.startsWith("jitted-")) return "JIT-compiled JavaScript";
  if (dso.startsWith("libc.") || dso.startsWith("libc-")) return "libc";
  return dso === binary ? "runtime native" : "other";
}
