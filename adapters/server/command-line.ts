/**
 * @module
 * What the standalone server's command line answers without starting a server: `--help` (the
 * settings table), `--version` (the package's version and the runtime's), and
 * `animal-store health [--live | --ready | --started] [--url URL]`, a probe for container health
 * checks that needs no curl.
 */
import process from "node:process";
import { VERSION } from "./_version.ts";
import { reachableHost, urlHost } from "../_serve.ts";
import { HEALTH_PATH, PROBE_PATHS } from "../../src/plugs/health/mod.ts";
import { runtimeOf } from "./_process-metrics.ts";
import { defaultOf, SETTINGS } from "./settings.ts";
import { KEY_USAGE } from "./key-command.ts";

/** How long `health` waits for an answer before calling the server unhealthy. */
const HEALTH_TIMEOUT_MS = 5_000;

/** How much of an unhealthy answer's body `health` reads, and how many characters of it it prints. */
const HEALTH_BODY_BYTES = 4096;
const HEALTH_REASON_CHARACTERS = 200;

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
    "       animal-store health [--live|--ready|--started] [--url URL]   exit 0 if the probe answers 200, 1 otherwise",
    "       animal-store export [--out FILE] [--allow-empty]   every pet of the store, as JSON Lines (docs/stores.md)",
    "       animal-store import [--in FILE] [--append]   an export into the store, keeping ids, all or nothing",
    "       animal-store import --check [--in FILE]      an export read and checked whole, nothing written",
    "       animal-store backup --dir DIR [--keep N] [--every 1d]   exports checked into DIR, the newest N kept",
    "       animal-store migrate [--dry-run] [--to VERSION]   the store's tables or file brought to this version",
    `       ${KEY_USAGE}`,
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

/** The probe each mode of `health` asks, by its flag; without one, `GET /health` (readiness). */
const PROBE_FLAGS: Readonly<Record<string, string>> = { "--live": PROBE_PATHS.live, "--ready": PROBE_PATHS.ready, "--started": PROBE_PATHS.started };

/**
 * GET at `--url` (http or https only), or the probe a mode names (`--live`, `--ready`, `--started`;
 * none: `/health`) at this machine's PORT: 0 on 200, 1 on any other answer (a redirect included: it
 * is not followed) or none in time, 2 on bad arguments. Of another answer, one line with the start
 * of its body, whitespace folded and control characters replaced.
 */
async function health(args: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const modes = args.filter((arg) => Object.hasOwn(PROBE_FLAGS, arg));
  const rest = args.filter((arg) => !Object.hasOwn(PROBE_FLAGS, arg));
  const url = modes.length > 1 || (modes.length === 1 && rest.length > 0) ? undefined : healthUrl(rest, env, PROBE_FLAGS[modes[0] ?? ""] ?? HEALTH_PATH);
  if (url === undefined) {
    process.stderr.write("animal-store: health takes one of --live, --ready or --started (the probe on PORT), or --url with an http or https URL (e.g. --url http://127.0.0.1:8080/health/live)\n");
    return 2;
  }
  try {
    const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    if (response.status === 200) {
      await response.body?.cancel();
      return print(`healthy: ${url}`);
    }
    const reason = printable(await bodyPrefix(response, HEALTH_BODY_BYTES));
    process.stderr.write(`animal-store: unhealthy: ${url} answered ${response.status}${reason === "" ? "" : `: ${reason}`}\n`);
  } catch (error) {
    process.stderr.write(`animal-store: unhealthy: ${url}: ${printable(describe(error))}\n`);
  }
  return 1;
}

/** The first `bytes` bytes of a body as text (a cut character replaced); the rest is never read. */
async function bodyPrefix(response: Response, bytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length < bytes) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value.subarray(0, bytes - length));
    length += Math.min(value.length, bytes - length);
  }
  await reader.cancel();
  const joined = new Uint8Array(length);
  chunks.reduce((offset, chunk) => (joined.set(chunk, offset), offset + chunk.length), 0);
  return new TextDecoder().decode(joined);
}

/** Text for one line of a terminal: whitespace folded to one space, other control characters as U+FFFD, at most HEALTH_REASON_CHARACTERS. */
function printable(text: string): string {
  const line = text.replace(/\s+/g, " ").replace(/[\u0000-\u001f\u007f-\u009f]/g, "\ufffd").trim();
  return line.length > HEALTH_REASON_CHARACTERS ? `${line.slice(0, HEALTH_REASON_CHARACTERS)}…` : line;
}

/** An error's message with its cause's code (Node's fetch says only "fetch failed"). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? `${error.message} (${code})` : error.message;
}

/** `--url URL` or `--url=URL` with an http(s) URL; without it, `path` on the local server on PORT (HOST's loopback when it listens everywhere). */
function healthUrl(args: readonly string[], env: Readonly<Record<string, string | undefined>>, path: string): string | undefined {
  const [flag, value, ...rest] = args.length === 1 && args[0]!.startsWith("--url=") ? ["--url", args[0]!.slice(6)] : args;
  if (flag !== undefined && (flag !== "--url" || value === undefined || rest.length > 0 || !isHttpUrl(value))) return undefined;
  // As parsed: any control character in what was typed is percent-encoded, so the line printed stays one line.
  if (value !== undefined) return new URL(value).href;
  const host = env["HOST"] || defaultOf("HOST") || "";
  return `http://${urlHost(reachableHost(host))}:${env["PORT"] || defaultOf("PORT")}${path}`;
}

function isHttpUrl(text: string): boolean {
  const protocol = URL.canParse(text) ? new URL(text).protocol : "";
  return protocol === "http:" || protocol === "https:";
}
