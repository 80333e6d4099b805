/**
 * @module
 * What the standalone server's command line answers without starting a server: `--help` (the
 * settings table), `--version` (the package's version and the runtime's), and
 * `animal-store health [--url URL]`, a probe for container health checks that needs no curl.
 */
import process from "node:process";
import { VERSION } from "./_version.ts";
import { urlHost } from "../_serve.ts";
import { HEALTH_PATH } from "../../src/plugs/health/mod.ts";
import { runtimeOf } from "./_process-metrics.ts";
import { defaultOf, SETTINGS } from "./settings.ts";

/** How long `health` waits for an answer before calling the server unhealthy. */
const HEALTH_TIMEOUT_MS = 5_000;

/**
 * Answers `--help`, `--version` or `health` and resolves with the exit code, or resolves with
 * `undefined` when the arguments are for the server itself.
 */
export async function runCommand(args: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<number | undefined> {
  if (args[0] === "health") return await health(args.slice(1), env);
  if (args.includes("--help") || args.includes("-h")) return print(usage());
  if (args.includes("--version")) return print(`animal-store ${VERSION} (${runtimeOf().name} ${runtimeOf().version})`);
  return undefined;
}

/** The usage text: the commands, then every setting's flag, variable, default and summary. */
export function usage(): string {
  const rows = SETTINGS.map((setting) => [`${setting.flag} ${setting.variable}`, setting.default ?? "unset", setting.summary]);
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  return [
    "Usage: animal-store [--flag value ...]     start the server",
    "       animal-store health [--url URL]     exit 0 if GET /health answers 200, 1 otherwise",
    "       animal-store --help | --version",
    "",
    "Settings: each flag mirrors an environment variable (a flag wins). Flag, variable, default:",
    ...rows.map(([flag, fallback, summary]) => `  ${flag!.padEnd(widths[0]!)}  ${fallback!.padEnd(widths[1]!)}  ${summary}`),
  ].join("\n");
}

function print(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

/** GET /health at `--url`, or at this machine's PORT: 0 on 200, 1 on any other answer or none in time, 2 on bad arguments. */
async function health(args: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const url = healthUrl(args, env);
  if (url === undefined) {
    process.stderr.write("animal-store: health takes only --url URL (e.g. --url http://127.0.0.1:8080/health)\n");
    return 2;
  }
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    const body = await response.text();
    if (response.status === 200) return print(`healthy: ${url}`);
    process.stderr.write(`animal-store: unhealthy: ${url} answered ${response.status} ${body}\n`);
  } catch (error) {
    process.stderr.write(`animal-store: unhealthy: ${url}: ${describe(error)}\n`);
  }
  return 1;
}

/** An error's message with its cause's code (Node's fetch says only "fetch failed"). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? `${error.message} (${code})` : error.message;
}

/** `--url URL` or `--url=URL`; without it, the local server on PORT (HOST's loopback when it listens everywhere). */
function healthUrl(args: readonly string[], env: Readonly<Record<string, string | undefined>>): string | undefined {
  const [flag, value, ...rest] = args.length === 1 && args[0]!.startsWith("--url=") ? ["--url", args[0]!.slice(6)] : args;
  if (flag !== undefined && (flag !== "--url" || value === undefined || rest.length > 0 || !URL.canParse(value))) return undefined;
  if (value !== undefined) return value;
  const host = env["HOST"] || defaultOf("HOST") || "";
  const local = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${urlHost(local)}:${env["PORT"] || defaultOf("PORT")}${HEALTH_PATH}`;
}
