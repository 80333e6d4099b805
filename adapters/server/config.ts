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
import { defaultOf, SECRET_SETTINGS, SETTINGS } from "./settings.ts";
import { readTraceSettings } from "./trace-settings.ts";
import type { StoreName } from "./stores.ts";
import { isStoreName, STORE_NAMES } from "./stores.ts";

/** Which store the standalone server keeps pets in: a row of `SERVER_STORES`. */
export type StoreKind = StoreName;

/** Everything the standalone server needs to start. */
export interface Config extends OperateSettings {
  readonly port: number;
  readonly host: string;
  /** The keys of `API_KEYS`, or the one generated; none with `keyFile`. */
  readonly apiKeys: readonly string[];
  /** Whether `apiKeys` holds one key generated at start because none was configured. */
  readonly keyGenerated: boolean;
  /** `API_KEYS_FILE`: the key file the keys are read from, and read again on SIGHUP. */
  readonly keyFile?: string;
  /** `PID_FILE`: where the server writes its process id while it runs. */
  readonly pidFile?: string;
  /** The flags of secret settings given on the command line, where every user of the machine can read them (`ps`): each is warned of at start. */
  readonly secretFlags?: readonly string[];
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

/** The environment's variables, as a process gives them. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A setting's value by its variable: its flag's, else its variable's, else its default (set but empty counts as unset). */
export type SettingOf = (name: string) => string | undefined;

/** How settings are read from `env` and `args`, adding a problem for each argument that is no flag. */
export function settingsOf(env: Env, args: readonly string[], problems: string[]): SettingOf {
  const flags = flagSettings(args, problems);
  // Read named variables only: a runtime may allow reading these and nothing else (Deno's --allow-env).
  return (name) => (flags[name] ?? env[name]) || defaultOf(name);
}

/**
 * Reads the settings from environment variables and command-line arguments; `fromFiles` holds the
 * secret settings read from their `_FILE` (`secret-settings.ts`). With `keys: false` (the move
 * commands) no API key is read or generated.
 */
export function readConfig(env: Env, args: readonly string[], fromFiles: Readonly<Record<string, string>> = {}, options: { readonly keys?: boolean } = {}): ConfigResult {
  const problems: string[] = [];
  const given = settingsOf(env, args, problems);
  const setting: SettingOf = (name) => fromFiles[name] ?? given(name);
  const keyed = options.keys ?? true;
  const portText = setting("PORT") ?? "";
  const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : -1;
  if (port < 0 || port > 65535) problems.push(`PORT must be an integer from 0 to 65535, got "${portText}"`);
  const store = setting("STORE") ?? "";
  if (!isStoreName(store)) problems.push(`STORE must be ${orList(STORE_NAMES)}, got "${store}"`);
  const databaseUrl = store === "postgres" ? setting("DATABASE_URL") ?? "" : "";
  const urlProblem = store === "postgres" ? postgresUrlProblem(databaseUrl) : undefined;
  if (urlProblem !== undefined) problems.push(urlProblem);
  const configuredKeys = keyed ? (setting("API_KEYS") ?? "").split(",").map((key) => key.trim()).filter((key) => key !== "") : [];
  if (!configuredKeys.every(isBearerToken)) {
    problems.push("API_KEYS must be comma-separated bearer tokens (letters, digits and -._~+/ only)");
  }
  const migrate = setting("MIGRATE");
  if (migrate !== "on" && migrate !== "off") problems.push(`MIGRATE must be "on" or "off", got "${migrate}"`);
  const keyFile = keyed ? setting("API_KEYS_FILE") : undefined;
  problems.push(...bothGiven(given, keyed));
  const log = logSetting(setting("LOG") ?? "", setting("LOG_FORMAT") ?? "", problems);
  const logHealth = setting("LOG_HEALTH");
  if (logHealth !== "on" && logHealth !== "off") problems.push(`LOG_HEALTH must be "on" or "off", got "${logHealth}"`);
  const edge = readEdgeSettings(setting, problems);
  const operate = readOperateSettings(setting, port, problems);
  const cors = parseCorsOrigins(setting("CORS_ORIGINS") ?? "");
  const trace = readTraceSettings(setting, problems);
  if (!cors.ok) problems.push(...cors.issues.map((issue) => `CORS_ORIGINS ${issue}`));
  if (problems.length > 0) return { ok: false, issues: problems };
  const keyGenerated = keyed && keyFile === undefined && configuredKeys.length === 0;
  const pidFile = setting("PID_FILE");
  const secretFlags = commandLineSecrets(args);
  return {
    ok: true,
    value: {
      port,
      host: setting("HOST") ?? "",
      apiKeys: keyGenerated ? [generateKey()] : configuredKeys,
      keyGenerated,
      ...(keyFile === undefined ? {} : { keyFile }),
      ...(pidFile === undefined ? {} : { pidFile }),
      ...(secretFlags.length === 0 ? {} : { secretFlags }),
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

/** A problem for each secret setting given both itself and as a file (`DATABASE_URL` and `DATABASE_URL_FILE`): which one counts would be a guess. */
function bothGiven(given: SettingOf, keyed: boolean): string[] {
  return SECRET_SETTINGS.filter((name) => (keyed || name !== "API_KEYS") && given(name) !== undefined && given(`${name}_FILE`) !== undefined)
    .map((name) => `${name} and ${name}_FILE are both set: set one (${name}_FILE keeps the secret out of the environment and the command line)`);
}

/** The flags of secret settings among the arguments (`--api-keys`, `--database-url`, …). */
function commandLineSecrets(args: readonly string[]): string[] {
  const flags = new Set(SECRET_SETTINGS.map((name) => SETTINGS.find((setting) => setting.variable === name)!.flag));
  return [...new Set(args.map((arg) => arg.split("=", 1)[0]!).filter((flag) => flags.has(flag)))];
}

/** How a user or password with a URL's own characters is written in one, for the messages below. */
const ENCODED = "@ : / ? # % in the user or password percent-encoded (%40 %3A %2F %3F %23 %25)";

/**
 * Why `text` is no `DATABASE_URL`, or `undefined`; never quoting it, which holds the password. A password
 * with `/`, `?` or `#` written as it is ends the URL's host early, and one with a `%` that starts no
 * encoded byte was refused by the clients as a bare "URI malformed".
 */
function postgresUrlProblem(text: string): string | undefined {
  if (!URL.canParse(text) || !["postgres:", "postgresql:"].includes(new URL(text).protocol)) {
    return `STORE=postgres needs DATABASE_URL, a URL such as postgres://user:password@host:5432/database, with ${ENCODED}`;
  }
  const { username, password } = new URL(text);
  try {
    decodeURIComponent(username);
    decodeURIComponent(password);
    return undefined;
  } catch {
    return `DATABASE_URL's user or password holds a "%" that starts no percent-encoded character: write ${ENCODED}`;
  }
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
