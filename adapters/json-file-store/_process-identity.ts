/**
 * @module
 * Telling a live process from a dead one by more than its pid, from Linux's `/proc`.
 *
 * A pid alone says little: `kill(pid, 0)` succeeds on a zombie, a pid is reused by unrelated
 * processes, and in a container the server has the same low pid in every life. A process is named
 * here by its pid, its start time (`/proc/<pid>/stat`, in clock ticks since boot), the boot id and
 * its pid namespace: the same four values never name two processes. Where `/proc` cannot be read
 * (macOS, Windows, Deno without `--allow-all`), the fields are absent and the answer is "unknown".
 * Every process also names itself by a random `instance`, so a lock tells "this process" from
 * another process with the same pid (two containers' pid 1) even where `/proc` gives nothing.
 */
import { readFile, readlink } from "node:fs/promises";
import process from "node:process";

/** A process as it names itself in a lock file; fields `/proc` could not give are absent. */
export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime?: string;
  readonly bootId?: string;
  readonly pidNamespace?: string;
  /** Random, drawn once per process; absent in locks written by versions before it. */
  readonly instance?: string;
}

/** What `/proc` says about the process a lock names. */
export type Liveness = "alive" | "dead" | "unknown";

/** Drawn once when this module loads: it names this process (a constant, not state that changes). */
const INSTANCE = crypto.randomUUID();

/** This process's identity, with whatever `/proc` gives. */
export async function ownIdentity(): Promise<ProcessIdentity> {
  return { ...(await identityOf(process.pid)), instance: INSTANCE };
}

/** The identity of process `pid`, with whatever `/proc` gives. */
export async function identityOf(pid: number): Promise<ProcessIdentity> {
  const [stat, bootId, pidNamespace] = await Promise.all([
    readProcStat(pid),
    readOrUndefined(() => readFile("/proc/sys/kernel/random/boot_id", "utf8")),
    readOrUndefined(() => readlink(`/proc/${pid}/ns/pid`)),
  ]);
  return {
    pid,
    ...(typeof stat === "object" ? { startTime: stat.startTime } : {}),
    ...(bootId === undefined ? {} : { bootId: bootId.trim() }),
    ...(pidNamespace === undefined ? {} : { pidNamespace }),
  };
}

/**
 * Whether the process `owner` names still runs, asked by `self`. Only an owner from the same boot
 * and pid namespace can be looked up; a zombie counts as dead (it will never write again).
 */
export async function livenessOf(owner: ProcessIdentity, self: ProcessIdentity): Promise<Liveness> {
  const comparable = owner.startTime !== undefined && self.startTime !== undefined &&
    owner.bootId !== undefined && owner.bootId === self.bootId &&
    owner.pidNamespace !== undefined && owner.pidNamespace === self.pidNamespace;
  if (!comparable) return "unknown";
  const stat = await readProcStat(owner.pid);
  // With /proc mounted hidepid, another user's process has no entry: the signal check still sees it.
  if (stat === "gone") return isRunning(owner.pid) ? "unknown" : "dead";
  if (stat === undefined) return "unknown";
  if (stat.state === "Z" || stat.state === "X") return "dead";
  return stat.startTime === owner.startTime ? "alive" : "dead";
}

/** Whether two identities name the same process. */
export function isSameProcess(a: ProcessIdentity, b: ProcessIdentity): boolean {
  if (a.instance !== undefined && b.instance !== undefined) return a.instance === b.instance;
  return a.pid === b.pid && a.startTime === b.startTime && a.bootId === b.bootId && a.pidNamespace === b.pidNamespace;
}

/** A process's state letter and start time; "gone" when no such process exists; undefined when unreadable. */
async function readProcStat(pid: number): Promise<{ state: string; startTime: string } | "gone" | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    // Asked only when this process could read its own entry, so a missing one means no such process.
    const code = (error as { code?: unknown } | null)?.code;
    return code === "ENOENT" || code === "ESRCH" ? "gone" : undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and ")"; fields after the
  // last ")" start at field 3 (state); the start time is field 22.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const startTime = fields[19];
  return state !== undefined && startTime !== undefined ? { state, startTime } : undefined;
}

/** Whether a process `pid` exists (zombies included), by sending it no signal. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown } | null)?.code !== "ESRCH";
  }
}

async function readOrUndefined(read: () => Promise<string>): Promise<string | undefined> {
  try {
    return await read();
  } catch {
    return undefined;
  }
}
