/**
 * @module
 * The standalone server's trace export settings, read from the standard OpenTelemetry variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` and the rest, each also a flag). Tracing is on when an endpoint
 * is set and `OTEL_SDK_DISABLED` is not `true`; otherwise nothing of it is loaded. Each malformed value
 * is refused in one line, as every setting is, rather than ignored as the SDK would ignore it.
 */
import { FORBIDDEN_IN_HEADER_VALUE, HEADER_NAME } from "../../src/_server-entry.ts";

/** How spans are sent: OTLP over HTTP, as protobuf or JSON. */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** Which traces are sampled, as `OTEL_TRACES_SAMPLER` names them. */
export type SamplerName = (typeof SAMPLERS)[number];

/** Where and how spans are exported. */
export interface TraceSettings {
  /** The URL spans are posted to, e.g. `http://collector:4318/v1/traces`. */
  readonly url: string;
  readonly protocol: OtlpProtocol;
  readonly serviceName: string;
  /** From `OTEL_RESOURCE_ATTRIBUTES`, values percent-decoded. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: SamplerName;
  /** The sampled fraction for the `traceidratio` samplers, 0 to 1. */
  readonly ratio: number;
  /** Headers sent with every export (a collector's key), names as written. */
  readonly headers: Readonly<Record<string, string>>;
  /** How long an export may take, in milliseconds. */
  readonly timeoutMs: number;
  readonly compression: OtlpCompression;
  /** The longest an attribute's string value may be, in characters; longer ones are cut (a client's `User-Agent`). */
  readonly attributeValueLengthLimit: number;
}

/** How an export's body is compressed. */
export type OtlpCompression = (typeof COMPRESSIONS)[number];

const COMPRESSIONS = ["gzip", "none"] as const;

/** The longest timeout a timer takes (2^31 − 1 ms); past it runtimes fire at once, with a warning. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The longest attribute value the limit may allow, in characters. */
const MAX_ATTRIBUTE_LENGTH = 1_048_576;

/** The samplers of the specification that need nothing beyond the SDK. */
export const SAMPLERS = ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"] as const;

const PROTOCOLS: readonly OtlpProtocol[] = ["http/protobuf", "http/json"];

/** Reads the settings through `setting`, adding every problem found to `problems`; `undefined` when tracing is off. */
export function readTraceSettings(setting: (name: string) => string | undefined, problems: string[]): TraceSettings | undefined {
  const disabled = setting("OTEL_SDK_DISABLED") ?? "false";
  if (disabled !== "true" && disabled !== "false") problems.push(`OTEL_SDK_DISABLED must be "true" or "false", got "${disabled}"`);
  const url = tracesUrl(setting("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), setting("OTEL_EXPORTER_OTLP_ENDPOINT"), problems);
  if (url === undefined || disabled === "true") return undefined;
  const protocol = PROTOCOLS.find((name) => name === setting("OTEL_EXPORTER_OTLP_PROTOCOL"));
  if (protocol === undefined) problems.push(`OTEL_EXPORTER_OTLP_PROTOCOL must be "http/protobuf" or "http/json" (gRPC is not offered), got "${setting("OTEL_EXPORTER_OTLP_PROTOCOL")}"`);
  const sampler = SAMPLERS.find((name) => name === setting("OTEL_TRACES_SAMPLER"));
  if (sampler === undefined) problems.push(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(", ")}, got "${setting("OTEL_TRACES_SAMPLER")}"`);
  const ratioText = setting("OTEL_TRACES_SAMPLER_ARG") ?? "1";
  const ratio = /^(0(\.[0-9]+)?|1(\.0+)?)$/.test(ratioText) ? Number(ratioText) : Number.NaN;
  if (Number.isNaN(ratio)) problems.push(`OTEL_TRACES_SAMPLER_ARG must be a fraction from 0 to 1, got "${ratioText}"`);
  const resourceAttributes = parseResourceAttributes(setting("OTEL_RESOURCE_ATTRIBUTES") ?? "", problems);
  const headers = { ...exportHeaders("OTEL_EXPORTER_OTLP_HEADERS", setting, problems), ...exportHeaders("OTEL_EXPORTER_OTLP_TRACES_HEADERS", setting, problems) };
  const [timeoutName, timeoutText] = exporterSetting("TIMEOUT", setting);
  const timeoutMs = /^[0-9]{1,10}$/.test(timeoutText ?? "") ? Number(timeoutText) : 0;
  if (timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) problems.push(`${timeoutName} must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got "${timeoutText}"`);
  const [compressionName, compressionText] = exporterSetting("COMPRESSION", setting);
  const compression = COMPRESSIONS.find((name) => name === compressionText);
  if (compression === undefined) problems.push(`${compressionName} must be "gzip" or "none", got "${compressionText}"`);
  const [limitName, limitText] = preferred("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", setting);
  const attributeValueLengthLimit = /^[0-9]{1,7}$/.test(limitText ?? "") ? Number(limitText) : 0;
  if (attributeValueLengthLimit < 1 || attributeValueLengthLimit > MAX_ATTRIBUTE_LENGTH) problems.push(`${limitName} must be a whole number of characters from 1 to ${MAX_ATTRIBUTE_LENGTH}, got "${limitText}"`);
  return {
    url,
    protocol: protocol ?? "http/protobuf",
    serviceName: setting("OTEL_SERVICE_NAME") ?? "animal-store",
    resourceAttributes,
    sampler: sampler ?? "parentbased_always_on",
    ratio,
    headers,
    timeoutMs,
    compression: compression ?? "none",
    attributeValueLengthLimit,
  };
}

/** The exporter's setting `OTEL_EXPORTER_OTLP_TRACES_<name>` when set, else `OTEL_EXPORTER_OTLP_<name>`, with the variable it came from. */
function exporterSetting(name: string, setting: (name: string) => string | undefined): [string, string | undefined] {
  return preferred(`OTEL_EXPORTER_OTLP_TRACES_${name}`, `OTEL_EXPORTER_OTLP_${name}`, setting);
}

/** The specific setting when set, else the general one, with the variable it came from. */
function preferred(specific: string, general: string, setting: (name: string) => string | undefined): [string, string | undefined] {
  const value = setting(specific);
  return value !== undefined ? [specific, value] : [general, setting(general)];
}

/** The traces URL: the signal's own endpoint as it is, else the base endpoint with `v1/traces` appended, as the specification says. */
function tracesUrl(traces: string | undefined, base: string | undefined, problems: string[]): string | undefined {
  const [name, url] = traces !== undefined ? ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", traces] : ["OTEL_EXPORTER_OTLP_ENDPOINT", base];
  if (url === undefined) return undefined;
  if (!URL.canParse(url) || !["http:", "https:"].includes(new URL(url).protocol)) {
    problems.push(`${name} must be an http or https URL, such as http://localhost:4318, got "${url}"`);
    return undefined;
  }
  return traces !== undefined ? url : `${url.replace(/\/+$/, "")}/v1/traces`;
}

/** `key1=value1,key2=value2`, values percent-encoded (W3C Baggage's form), as a record. */
function parseResourceAttributes(text: string, problems: string[]): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const { pair, key, value } of keyValuePairs(text)) {
    if (key === "" || value === undefined) problems.push(`OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas, got "${pair}"`);
    else attributes[key] = value;
  }
  return attributes;
}

/** The export headers in `variable`, in the same form; a malformed pair is named by its place, never echoed (a header may carry the collector's key). */
function exportHeaders(variable: string, setting: (name: string) => string | undefined, problems: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const pairs = keyValuePairs(setting(variable) ?? "");
  pairs.forEach(({ key, value }, index) => {
    if (HEADER_NAME.test(key) && value !== undefined && !FORBIDDEN_IN_HEADER_VALUE.test(value)) headers[key] = value;
    else problems.push(`${variable} must be name=value pairs separated by commas (a header name, a percent-encoded value), but pair ${index + 1} of ${pairs.length} is not (the value is not echoed: it may be a secret)`);
  });
  return headers;
}

/** The comma-separated `key=value` pairs of `text`, trimmed, each value percent-decoded (`undefined` when it has no `=` or a bad escape). */
function keyValuePairs(text: string): { pair: string; key: string; value: string | undefined }[] {
  return text.split(",").map((part) => part.trim()).filter((part) => part !== "").map((pair) => {
    const equals = pair.indexOf("=");
    let value: string | undefined;
    try {
      value = equals > 0 ? decodeURIComponent(pair.slice(equals + 1).trim()) : undefined;
    } catch {
      value = undefined;
    }
    return { pair, key: equals === -1 ? pair : pair.slice(0, equals).trim(), value };
  });
}
