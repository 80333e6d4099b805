/**
 * @module
 * A benchmark leaves nothing running: `stopChildrenOnExit()` makes SIGINT, SIGTERM and SIGHUP (Ctrl-C,
 * a `kill` of the script alone, a closed terminal) end the script, and every process it started
 * (servers, wrk, the trace sink, and theirs) is killed as it exits, by a signal, an error or its end.
 * The processes are found in `/proc` rather than kept in a list, so one started by any helper, or
 * caught half-started, is found too: the benchmarks run on Linux only (taskset, wrk).
 */
import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** The parent of process `pid`, or `undefined` once it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    // After the command's name, in parentheses that may hold anything: state, then the parent (proc(5)).
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** Every process descended from `root`, children before their own. */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    const parent = Number.isInteger(pid) ? parentOf(pid) : undefined;
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: number[] = [];
  for (let next = [root]; next.length > 0;) {
    next = next.flatMap((pid) => children.get(pid) ?? []);
    found.push(...next);
  }
  return found;
}

/** Kills every process this one started, and theirs (SIGKILL: a benchmark's server has nothing to keep). */
export function killChildren(): void {
  for (const pid of descendantsOf(process.pid)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already: it ended between the look and the kill.
    }
  }
}

/** Kills every child as the script exits, and makes SIGINT, SIGTERM and SIGHUP exit it (128 + the signal's number). */
export function stopChildrenOnExit(): void {
  process.on("exit", killChildren);
  for (const signal of SIGNALS) process.on(signal, () => process.exit(128 + constants.signals[signal]));
}
