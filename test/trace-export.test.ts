import { expect, test } from "bun:test";
import packageJson from "../package.json" with { type: "json" };
import { TRACE_PACKAGES } from "../adapters/server/_otlp-export.ts";
import { defaultOf } from "../adapters/server/settings.ts";
import { readTraceSettings } from "../adapters/server/trace-settings.ts";

test("the install line the server and docs/operating.md give names the OpenTelemetry versions the tests use", () => {
  const devDependencies: Record<string, string> = packageJson.devDependencies;
  for (const pinned of TRACE_PACKAGES) {
    const at = pinned.lastIndexOf("@");
    expect(`${pinned.slice(0, at)}@${devDependencies[pinned.slice(0, at)]}`).toBe(pinned);
  }
});

/** The trace settings of an environment, or the problems found in it. */
function traceSettingsOf(env: Record<string, string>) {
  const problems: string[] = [];
  const settings = readTraceSettings((name) => env[name] ?? defaultOf(name), problems);
  return { settings, problems };
}

test("tracing is off unless an endpoint is set, and off with OTEL_SDK_DISABLED=true whatever is set", () => {
  expect(traceSettingsOf({})).toEqual({ settings: undefined, problems: [] });
  expect(traceSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toEqual({ settings: undefined, problems: [] });
});

test("the base endpoint gets /v1/traces appended; the traces endpoint is used as it is and wins", () => {
  expect(traceSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).settings?.url).toBe("http://collector:4318/v1/traces");
  expect(traceSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://b/otlp/traces" }).settings?.url).toBe("https://b/otlp/traces");
});

test("resource attributes are percent-decoded key=value pairs; the sampler and its ratio are read", () => {
  const { settings } = traceSettingsOf({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=prod, team=pets%20and%20more",
    OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
    OTEL_TRACES_SAMPLER_ARG: "0.25",
  });
  expect(settings?.resourceAttributes).toEqual({ "deployment.environment.name": "prod", team: "pets and more" });
  expect([settings?.sampler, settings?.ratio]).toEqual(["parentbased_traceidratio", 0.25]);
});

test("each bad value is named: gRPC, an unknown sampler, a ratio above 1, a pair without =, an endpoint that is no http URL", () => {
  const { problems } = traceSettingsOf({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
    OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    OTEL_TRACES_SAMPLER: "jaeger_remote",
    OTEL_TRACES_SAMPLER_ARG: "1.5",
    OTEL_RESOURCE_ATTRIBUTES: "novalue",
  });
  expect(problems.map((problem) => problem.split(" ")[0])).toEqual(["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_RESOURCE_ATTRIBUTES"]);
  expect(traceSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }).problems).toEqual([
    'OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL, such as http://localhost:4318, got "collector:4318"',
  ]);
});

test("the exporter's headers, timeout and compression are read: the traces' own forms win, a header value is percent-decoded", () => {
  const { settings, problems } = traceSettingsOf({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
    OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20YWJj, x-tenant=pets",
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-tenant=traces",
    OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
    OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "gzip",
  });
  expect(problems).toEqual([]);
  expect([settings?.headers, settings?.timeoutMs, settings?.compression]).toEqual([{ Authorization: "Basic YWJj", "x-tenant": "traces" }, 2500, "gzip"]);
  expect(traceSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }).settings).toMatchObject({ headers: {}, timeoutMs: 10_000, compression: "none" });
});

test.each([
  ["OTEL_EXPORTER_OTLP_HEADERS", "Authorization: Bearer secret-token", 'OTEL_EXPORTER_OTLP_HEADERS must be name=value pairs separated by commas (a header name, a percent-encoded value), but pair 1 of 1 is not (the value is not echoed: it may be a secret)'],
  ["OTEL_EXPORTER_OTLP_TRACES_HEADERS", "a=1,bad name=secret-token", 'OTEL_EXPORTER_OTLP_TRACES_HEADERS must be name=value pairs separated by commas (a header name, a percent-encoded value), but pair 2 of 2 is not (the value is not echoed: it may be a secret)'],
  ["OTEL_EXPORTER_OTLP_HEADERS", "x-key=secret%ZZ", 'OTEL_EXPORTER_OTLP_HEADERS must be name=value pairs separated by commas (a header name, a percent-encoded value), but pair 1 of 1 is not (the value is not echoed: it may be a secret)'],
  ["OTEL_EXPORTER_OTLP_HEADERS", "x-key=line%0Abreak", 'OTEL_EXPORTER_OTLP_HEADERS must be name=value pairs separated by commas (a header name, a percent-encoded value), but pair 1 of 1 is not (the value is not echoed: it may be a secret)'],
  ["OTEL_EXPORTER_OTLP_TIMEOUT", "10s", 'OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of milliseconds from 1 to 2147483647, got "10s"'],
  ["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "0", 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT must be a whole number of milliseconds from 1 to 2147483647, got "0"'],
  ["OTEL_EXPORTER_OTLP_TIMEOUT", "2147483648", 'OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of milliseconds from 1 to 2147483647, got "2147483648"'],
  ["OTEL_EXPORTER_OTLP_COMPRESSION", "zstd", 'OTEL_EXPORTER_OTLP_COMPRESSION must be "gzip" or "none", got "zstd"'],
  ["OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "GZIP", 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION must be "gzip" or "none", got "GZIP"'],
])("%s=%p is refused in one line naming it", (variable, value, problem) => {
  expect(traceSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", [variable]: value }).problems).toEqual([problem]);
});

test("an attribute's value keeps 1024 characters unless told otherwise; the span's own limit wins", () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
  expect(traceSettingsOf(endpoint).settings?.attributeValueLengthLimit).toBe(1024);
  expect(traceSettingsOf({ ...endpoint, OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "256" }).settings?.attributeValueLengthLimit).toBe(256);
  expect(traceSettingsOf({ ...endpoint, OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "256", OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "64" }).settings?.attributeValueLengthLimit).toBe(64);
});

test.each([
  ["OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "0"],
  ["OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "unlimited"],
  ["OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "1048577"],
  ["OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "-5"],
])("%s=%p is refused in one line naming it", (variable, value) => {
  expect(traceSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", [variable]: value }).problems).toEqual([`${variable} must be a whole number of characters from 1 to 1048576, got "${value}"`]);
});
