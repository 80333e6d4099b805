/**
 * @module
 * The standalone server's settings, read from the environment and mirrored by command-line flags
 * (`--port 8080` or `--port=8080`; a flag wins over its variable).
 */
import type { CorsOrigins } from "../../src/plugs/cors/mod.ts";
import type { Validation } from "../../src/mod.ts";
import type { LogFormat } from "./access-log.ts";
import type { EdgeSettings } from "./edge-settings.ts";
import type { OperateSettings } from "./operate-settings.ts";
import type { TraceSettings } from "./trace-settings.ts";
import { isBearerToken } from "../../src/_server-entry.ts";
import { parseCorsOrigins } from "../../src/plugs/cors/mod.ts";
import { LOG_FORMATS } from "./access-log.ts";
import { readEdgeSettings } from "./edge-settings.ts";
import { readOperateSettings } from "./operate-settings.ts";
import { defaultOf, SETTINGS } from "./settings.ts";
import { readTraceSettings } from "./trace-settings.ts";
import type { StoreName } from "./stores.ts";
import { isStoreName, STORE_NAMES } from "./stores.ts";

/** Which store the standalone server keeps pets in: a row of `SERVER_STORES`. */
export type StoreKind = StoreName;

/** Everything the standalone server needs to start. */
export interface Config extends OperateSettings {
  readonly port: number;
  readonly host: string;
  readonly apiKeys: readonly string[];
  /** Whether `apiKeys` holds one key generated at start because none was configured. */
  readonly keyGenerated: boolean;
  readonly store: StoreKind;
  readonly dataFile: string;
  /** The PostgreSQL connection URL, for `store: "postgres"` (`""` otherwise). */
  readonly databaseUrl: string;
  /** Whether opening the store may make or change its tables or file (`MIGRATE=on`); `animal-store migrate` does it otherwise. */
  readonly migrate: boolean;
  /** How the access log is written, or `"off"` for no access log (and no `X-Request-Id`). */
  readonly log: LogFormat | "off";
  /** Whether the health probes are logged and traced as other requests are (`LOG_HEALTH=on`). */
  readonly logHealth: boolean;
  /** Public URL, proxy trust and timeouts. */
  readonly edge: EdgeSettings;
  /** The origins whose pages may call the API (`CORS_ORIGINS`); absent: no CORS. */
  readonly corsOrigins?: CorsOrigins;
  /** Where spans are exported (`OTEL_*`); absent: no tracing, and nothing of it is loaded. */
  readonly trace?: TraceSettings;
}

/** The settings, or every problem found in them. */
export type ConfigResult = Validation<Config>;

const FLAGS = new Map(SETTINGS.map((setting) => [setting.flag, setting.variable]));

/** Reads the settings from environment variables and command-line arguments. */
export function readConfig(env: Readonly<Record<string, string | undefined>>, args: readonly string[]): ConfigResult {
  const problems: string[] = [];
  const flags = flagSettings(args, problems);
  // Read named variables only: a runtime may allow reading these and nothing else (Deno's --allow-env).
  // Set but empty counts as unset.
  const setting = (name: string) => (flags[name] ?? env[name]) || defaultOf(name);
  const portText = setting("PORT") ?? "";
  const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : -1;
  if (port < 0 || port > 65535) problems.push(`PORT must be an integer from 0 to 65535, got "${portText}"`);
  const store = setting("STORE") ?? "";
  if (!isStoreName(store)) problems.push(`STORE must be ${orList(STORE_NAMES)}, got "${store}"`);
  const databaseUrl = store === "postgres" ? setting("DATABASE_URL") ?? "" : "";
  if (store === "postgres" && !isPostgresUrl(databaseUrl)) {
    problems.push("STORE=postgres needs DATABASE_URL, a URL such as postgres://user:password@host:5432/database");
  }
  const configuredKeys = (setting("API_KEYS") ?? "").split(",").map((key) => key.trim()).filter((key) => key !== "");
  if (!configuredKeys.every(isBearerToken)) {
    problems.push("API_KEYS must be comma-separated bearer tokens (letters, digits and -._~+/ only)");
  }
  const migrate = setting("MIGRATE");
  if (migrate !== "on" && migrate !== "off") problems.push(`MIGRATE must be "on" or "off", got "${migrate}"`);
  const log = logSetting(setting("LOG") ?? "", setting("LOG_FORMAT") ?? "", problems);
  const logHealth = setting("LOG_HEALTH");
  if (logHealth !== "on" && logHealth !== "off") problems.push(`LOG_HEALTH must be "on" or "off", got "${logHealth}"`);
  const edge = readEdgeSettings(setting, problems);
  const operate = readOperateSettings(setting, port, problems);
  const cors = parseCorsOrigins(setting("CORS_ORIGINS") ?? "");
  const trace = readTraceSettings(setting, problems);
  if (!cors.ok) problems.push(...cors.issues.map((issue) => `CORS_ORIGINS ${issue}`));
  if (problems.length > 0) return { ok: false, issues: problems };
  const keyGenerated = configuredKeys.length === 0;
  return {
    ok: true,
    value: {
      port,
      host: setting("HOST") ?? "",
      apiKeys: keyGenerated ? [generateKey()] : configuredKeys,
      keyGenerated,
      store: store as StoreKind,
      dataFile: setting("DATA_FILE") ?? "",
      databaseUrl,
      migrate: migrate === "on",
      log,
      logHealth: logHealth === "on",
      edge,
      ...operate,
      // Unset or empty: no CORS, as before the setting existed.
      ...(cors.ok && cors.value.length > 0 ? { corsOrigins: cors.value } : {}),
      ...(trace === undefined ? {} : { trace }),
    },
  };
}

/** `"a", "b" or "c"`: the names, quoted, as a message lists the values a setting takes. */
function orList(names: readonly string[]): string {
  const quoted = names.map((name) => `"${name}"`);
  return quoted.length < 2 ? quoted.join("") : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

/** The access log's format from LOG (`on` or `off`) and LOG_FORMAT (`text` or `json`). */
function logSetting(log: string, format: string, problems: string[]): LogFormat | "off" {
  if (log !== "on" && log !== "off") problems.push(`LOG must be "on" or "off", got "${log}"`);
  const known = LOG_FORMATS.find((name) => name === format);
  if (known === undefined) problems.push(`LOG_FORMAT must be ${LOG_FORMATS.map((name) => `"${name}"`).join(" or ")}, got "${format}"`);
  return log === "off" ? "off" : known ?? "text";
}

function isPostgresUrl(text: string): boolean {
  return URL.canParse(text) && ["postgres:", "postgresql:"].includes(new URL(text).protocol);
}

function flagSettings(args: readonly string[], problems: string[]): Record<string, string> {
  const settings: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const equals = arg.indexOf("=");
    const flag = equals === -1 ? arg : arg.slice(0, equals);
    const variable = FLAGS.get(flag);
    if (variable === undefined) {
      problems.push(`Unknown argument "${arg}"; known flags are ${[...FLAGS.keys()].join(", ")}`);
      continue;
    }
    const value = equals === -1 ? args[++i] : arg.slice(equals + 1);
    if (value === undefined) problems.push(`${flag} needs a value`);
    else settings[variable] = value;
  }
  return settings;
}

/** A random API key: 32 bytes of randomness, base64url-encoded. */
export function generateKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
