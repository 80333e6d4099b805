/**
 * @module
 * The standalone server's trace export settings, read from the standard OpenTelemetry variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` and the rest, each also a flag). Tracing is on when an endpoint
 * is set and `OTEL_SDK_DISABLED` is not `true`; otherwise nothing of it is loaded.
 */

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
}

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
  return { url, protocol: protocol ?? "http/protobuf", serviceName: setting("OTEL_SERVICE_NAME") ?? "animal-store", resourceAttributes, sampler: sampler ?? "parentbased_always_on", ratio };
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
  for (const pair of text.split(",").map((part) => part.trim()).filter((part) => part !== "")) {
    const equals = pair.indexOf("=");
    const key = pair.slice(0, equals).trim();
    let value: string | undefined;
    try {
      value = equals > 0 ? decodeURIComponent(pair.slice(equals + 1).trim()) : undefined;
    } catch {
      value = undefined;
    }
    if (key === "" || value === undefined) problems.push(`OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas, got "${pair}"`);
    else attributes[key] = value;
  }
  return attributes;
}
