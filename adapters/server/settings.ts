/**
 * @module
 * Every setting of the standalone server in one table: its environment variable, the flag that
 * mirrors it, its default and one line saying what it does. `readConfig` takes its flags and defaults
 * from here, `--help` prints it, and a test holds docs/running.md's configuration table to it.
 */
import { DEFAULT_TIMEOUTS } from "../_timeouts.ts";
import { SYNC_MS } from "../../src/plugs/rate-limit/mod.ts";
import { STORE_NAMES } from "./stores.ts";

/** One setting: variable, flag, default (`undefined`: unset) and what it does. */
export interface Setting {
  readonly variable: string;
  readonly flag: string;
  readonly default: string | undefined;
  readonly summary: string;
  /** Holds a secret: it may be given as a file instead (`<variable>_FILE`, the next row), and given as a flag it is warned of. */
  readonly secret?: true;
}

/** The standalone server's settings, in the order docs/running.md's table lists them. */
export const SETTINGS: readonly Setting[] = Object.freeze(([
  { variable: "PORT", flag: "--port", default: "8080", summary: "Port to listen on; 0 picks any free port" },
  { variable: "HOST", flag: "--host", default: "127.0.0.1", summary: "Address to listen on (0.0.0.0 for every interface)" },
  { variable: "API_KEYS", flag: "--api-keys", default: undefined, summary: "Comma-separated bearer keys; unset: one is generated and printed", secret: true },
  { variable: "API_KEYS_FILE", flag: "--api-keys-file", default: undefined, summary: "A key file, a key a line: name, sha256:<hash>, scope=read, expires=<time>; SIGHUP reloads it" },
  { variable: "PID_FILE", flag: "--pid-file", default: undefined, summary: "A file the server writes its process id to while it runs, for kill -HUP" },
  { variable: "STORE", flag: "--store", default: "file", summary: `Where pets are kept: ${STORE_NAMES.join(", ")}` },
  { variable: "DATA_FILE", flag: "--data-file", default: "data/pets.json", summary: "The JSON-file store's file, created on first start" },
  { variable: "DATABASE_URL", flag: "--database-url", default: undefined, summary: "With STORE=postgres: postgres://user:password@host:5432/database", secret: true },
  { variable: "DATABASE_URL_FILE", flag: "--database-url-file", default: undefined, summary: "A file holding DATABASE_URL (a Docker or Kubernetes secret)" },
  { variable: "MIGRATE", flag: "--migrate", default: "on", summary: "off: the server never makes or changes the store's tables or file (animal-store migrate does)" },
  { variable: "LOG", flag: "--log", default: "on", summary: "off turns the access log (and X-Request-Id) off" },
  { variable: "LOG_FORMAT", flag: "--log-format", default: "text", summary: "text, or json for JSON Lines" },
  { variable: "LOG_HEALTH", flag: "--log-health", default: "on", summary: "off keeps the /health probes out of the access log and traces (the metrics count them)" },
  { variable: "CORS_ORIGINS", flag: "--cors-origins", default: undefined, summary: "Comma-separated origins whose pages may call the API, or *" },
  { variable: "PUBLIC_URL", flag: "--public-url", default: undefined, summary: "The URL clients reach the service at, for Location and Link" },
  { variable: "TRUST_PROXY", flag: "--trust-proxy", default: "false", summary: "x-forwarded or forwarded: the one header the proxy in front sets" },
  { variable: "HEADER_TIMEOUT", flag: "--header-timeout", default: String(DEFAULT_TIMEOUTS.headerSeconds), summary: "Seconds to send a request's headers (1-255)" },
  { variable: "BODY_TIMEOUT", flag: "--body-timeout", default: String(DEFAULT_TIMEOUTS.bodySeconds), summary: "Seconds for a body to arrive after its headers (1-255)" },
  { variable: "IDLE_TIMEOUT", flag: "--idle-timeout", default: String(DEFAULT_TIMEOUTS.idleSeconds), summary: "Seconds a keep-alive connection may sit idle (1-255)" },
  { variable: "RATE_LIMIT", flag: "--rate-limit", default: undefined, summary: "Requests per key: 100/s, 6000/min, 10/h, optionally ,burst=200" },
  { variable: "RATE_LIMIT_SYNC_MS", flag: "--rate-limit-sync-ms", default: String(SYNC_MS.default), summary: `With STORE=postgres: ms between an instance's exchanges of rate-limit counts (${SYNC_MS.min}-${SYNC_MS.max})` },
  { variable: "METRICS_PORT", flag: "--metrics-port", default: undefined, summary: "Serves Prometheus metrics at GET /metrics on this port" },
  { variable: "SERVER_TIMING", flag: "--server-timing", default: "off", summary: "on gives every answer a Server-Timing header: the time the service took" },
  { variable: "OTEL_EXPORTER_OTLP_ENDPOINT", flag: "--otel-exporter-otlp-endpoint", default: undefined, summary: "Sends traces over OTLP/HTTP to this collector (to /v1/traces under it)" },
  { variable: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", flag: "--otel-exporter-otlp-traces-endpoint", default: undefined, summary: "The full URL traces are sent to; wins over OTEL_EXPORTER_OTLP_ENDPOINT" },
  { variable: "OTEL_EXPORTER_OTLP_PROTOCOL", flag: "--otel-exporter-otlp-protocol", default: "http/protobuf", summary: "http/protobuf or http/json" },
  { variable: "OTEL_EXPORTER_OTLP_HEADERS", flag: "--otel-exporter-otlp-headers", default: undefined, summary: "Headers sent with every export: name=value,name=value, values percent-encoded", secret: true },
  { variable: "OTEL_EXPORTER_OTLP_HEADERS_FILE", flag: "--otel-exporter-otlp-headers-file", default: undefined, summary: "A file holding OTEL_EXPORTER_OTLP_HEADERS" },
  { variable: "OTEL_EXPORTER_OTLP_TRACES_HEADERS", flag: "--otel-exporter-otlp-traces-headers", default: undefined, summary: "More export headers; a name in both wins here", secret: true },
  { variable: "OTEL_EXPORTER_OTLP_TRACES_HEADERS_FILE", flag: "--otel-exporter-otlp-traces-headers-file", default: undefined, summary: "A file holding OTEL_EXPORTER_OTLP_TRACES_HEADERS" },
  { variable: "OTEL_EXPORTER_OTLP_TIMEOUT", flag: "--otel-exporter-otlp-timeout", default: "10000", summary: "Milliseconds an export may take" },
  { variable: "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", flag: "--otel-exporter-otlp-traces-timeout", default: undefined, summary: "Milliseconds an export may take; wins over OTEL_EXPORTER_OTLP_TIMEOUT" },
  { variable: "OTEL_EXPORTER_OTLP_COMPRESSION", flag: "--otel-exporter-otlp-compression", default: "none", summary: "gzip or none" },
  { variable: "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", flag: "--otel-exporter-otlp-traces-compression", default: undefined, summary: "gzip or none; wins over OTEL_EXPORTER_OTLP_COMPRESSION" },
  { variable: "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", flag: "--otel-attribute-value-length-limit", default: "1024", summary: "Characters a span attribute's value keeps (a longer User-Agent is cut)" },
  { variable: "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", flag: "--otel-span-attribute-value-length-limit", default: undefined, summary: "The same for spans; wins over OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT" },
  { variable: "OTEL_SERVICE_NAME", flag: "--otel-service-name", default: "animal-store", summary: "The service.name of exported spans" },
  { variable: "OTEL_RESOURCE_ATTRIBUTES", flag: "--otel-resource-attributes", default: undefined, summary: "More resource attributes: key=value,key=value" },
  { variable: "OTEL_TRACES_SAMPLER", flag: "--otel-traces-sampler", default: "parentbased_always_on", summary: "Which traces are recorded: always_on, always_off, traceidratio or parentbased_*" },
  { variable: "OTEL_TRACES_SAMPLER_ARG", flag: "--otel-traces-sampler-arg", default: undefined, summary: "The fraction the traceidratio samplers record, 0 to 1 (unset: 1)" },
  { variable: "OTEL_SDK_DISABLED", flag: "--otel-sdk-disabled", default: "false", summary: "true turns tracing off whatever else is set" },
  { variable: "DENO_SERVER", flag: "--deno-server", default: "node:http", summary: "On Deno: node:http, or Deno.serve (faster, no header or idle timeout)" },
] satisfies Setting[]).map((setting): Setting => Object.freeze(setting)));

/** The settings that hold secrets, each also read from a file named by `<variable>_FILE`. */
export const SECRET_SETTINGS: readonly string[] = Object.freeze(SETTINGS.filter((setting) => setting.secret === true).map((setting) => setting.variable));

/** The default of the setting read from `variable`, or `undefined` when it is unset by default. */
export function defaultOf(variable: string): string | undefined {
  return SETTINGS.find((setting) => setting.variable === variable)?.default;
}
