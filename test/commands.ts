/**
 * @module
 * The standalone server's commands (`health`, `export`, `import`, `migrate`, `backup`, `--help`) run
 * to their end as processes, on a runtime's own start script without npm in the way.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };

/** A runtime a command runs on, by its npm script. */
export type CommandRuntime = "bun" | "deno" | "node";

const SCRIPTS: Record<CommandRuntime, string> = { bun: "start", deno: "start:deno", node: "start:node" };
const scripts: Record<string, string | undefined> = packageJson.scripts;

/** What a finished command said. */
export interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** How a command is run besides its arguments. */
export interface CommandOptions {
  /** Variables beside the test's own environment (PORT is 0 unless given). */
  readonly env?: Readonly<Record<string, string>>;
  /** Its standard input. Default: empty. */
  readonly stdin?: string | ReadableStream<Uint8Array>;
  /** Another checkout's folder to run it from (`older-checkout.ts`). */
  readonly checkout?: string;
  /** How long it may take before it is killed. Default 60 s. */
  readonly timeoutMs?: number;
}

/** The argv of the runtime's start script with `args` after it, from `checkout` when given. */
export function commandArgv(runtime: CommandRuntime, args: readonly string[], checkout = ""): string[] {
  const [command = "", ...rest] = (scripts[SCRIPTS[runtime]] ?? "").replace(/^exec /, "").split(" ");
  const local = `node_modules/.bin/${command}`;
  const script = join(checkout, rest.pop() ?? "");
  return [existsSync(local) ? local : command, ...rest, script, ...args];
}

/** Runs the command to its end (bounded), and resolves with its exit code and output. */
export async function runCommand(runtime: CommandRuntime, args: readonly string[], options: CommandOptions = {}): Promise<Outcome> {
  const { stdin = "", env = {} } = options;
  const child = Bun.spawn(commandArgv(runtime, args, options.checkout), {
    env: { ...process.env, PORT: "0", ...env },
    stdin: typeof stdin === "string" ? new Blob([stdin]) : stdin,
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}
