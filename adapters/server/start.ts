/**
 * @module
 * The standalone server, whatever the runtime: read the settings (secrets from their files), the API
 * keys, open the store, serve the API with its plugs (`GET /health` first) and its wraps (the access
 * log, the metrics, `Server-Timing`), print the base URL, and on SIGINT/SIGTERM finish in-flight
 * requests, close the store and exit 0. SIGHUP reads `API_KEYS_FILE` again; without one it stops as
 * SIGTERM does (docs/decisions.md).
 */
import process from "node:process";
import type { App, KeyRing, PetStore, Plug, Wrap } from "../../src/mod.ts";
import type { GeneratedKey } from "./api-key-file.ts";
import type { Config } from "./config.ts";
import type { Notices } from "./notices.ts";
import type { TraceSettings } from "./trace-settings.ts";
import type { ConnectPostgres } from "./postgres-connection.ts";
import type { Serve, Server } from "../_serve.ts";
import { urlHost } from "../_serve.ts";
import { createApp, createKeyRing } from "../../src/mod.ts";
import type { AccessLog } from "./access-log.ts";
import type { Metrics } from "./metrics.ts";
import type { TraceExport } from "./_otlp-export.ts";
import { createAccessLog } from "./access-log.ts";
import { keepApiKey, keyNotice } from "./api-key-file.ts";
import { runCommand } from "./command-line.ts";
import { isStoreCommand, runMove } from "./move-commands.ts";
import { NOTICES_TO_STDERR } from "./_move-common.ts";
import { readConfig, settingsOf } from "./config.ts";
import { keyReloader, readKeyFile } from "./key-file.ts";
import { runKeyCommand } from "./key-command.ts";
import { removePidFile, writePidFile } from "./pid-file.ts";
import { readSecretFiles, secretFlagWarning } from "./secret-settings.ts";
import { health } from "../../src/plugs/health/mod.ts";
import { cors } from "../../src/plugs/cors/mod.ts";
import type { RateCounters } from "../../src/plugs/rate-limit/mod.ts";
import { rateLimit } from "../../src/plugs/rate-limit/mod.ts";
import { referencePage } from "../../src/plugs/reference-page/mod.ts";
import { hostProblem, listenProblem } from "./listen-checks.ts";
import { createNotices, escapeControls, takeProcessWarnings } from "./notices.ts";
import { createOutput } from "./output.ts";
import { createMetrics, METRICS_PATH } from "./metrics.ts";
import { serverTiming } from "./server-timing.ts";
import { exceptProbes } from "./quiet-probes.ts";
import { featuresLine, referenceLine } from "./start-lines.ts";
import type { OpenContext, SharedCounters } from "./stores.ts";
import { serverStore } from "./stores.ts";

/** What the standalone server needs from its runtime besides `serve`. */
export interface RuntimeOptions {
  /** Makes the PostgreSQL client this runtime uses, for `STORE=postgres`. */
  readonly connectPostgres: ConnectPostgres;
  /** Whether the runtime exports OpenTelemetry itself (Deno with `OTEL_DENO=true`): spans then go through it, whatever `OTEL_EXPORTER_*` says. */
  readonly exportsTraces?: boolean;
}

/** How long shutdown waits for in-flight requests before exiting anyway (a supervisor's stop timeout goes past it and the next). */
export const SHUTDOWN_GRACE_MS = 10_000;

/** How long, past the grace, closing the store may take before the process exits anyway. */
export const LATE_STORE_CLOSE_MS = 3000;

/** What a stop keeps of its grace after sending the last spans, to exit 0 in time. */
const TRACE_FLUSH_MARGIN_MS = 500;

/** Which `serve` a runtime uses with the given settings. */
export type ChooseServe = (config: Config) => Serve;

/** Runs the standalone server with the `serve` the runtime chooses for the settings. */
export async function start(chooseServe: ChooseServe, runtime: RuntimeOptions): Promise<void> {
  const args = process.argv.slice(2);
  if (isStoreCommand(args[0])) {
    const context = { runtime, notices: NOTICES_TO_STDERR };
    return void (process.exitCode = await runMove(args, process.env, context, (config) => openStore(config, context)));
  }
  if (args[0] === "key") return void (process.exitCode = await runKeyCommand(args.slice(1)));
  const answered = await runCommand(args, process.env);
  if (answered !== undefined) return void (process.exitCode = answered);
  const fromFiles = await readSecretFiles(settingsOf(process.env, args, []));
  if (!fromFiles.ok) return fail(fromFiles.issues);
  const result = readConfig(process.env, args, fromFiles.value);
  if (!result.ok) return fail(result.issues);
  // Before the key file is kept beside the store: a folder that takes no files is named as its setting.
  const problem = (await hostProblem(result.value.host)) ?? serverStore(result.value).problem?.(result.value);
  if (problem !== undefined) return fail([problem]);
  const generated = result.value.keyGenerated ? await generatedKey(result.value) : undefined;
  const config = generated === undefined ? result.value : { ...result.value, apiKeys: [generated.key] };
  const keys = await serverKeys(config, generated !== undefined);
  const serve = chooseServe(config);
  const output = createOutput();
  const notices = createNotices(config.log, output);
  takeProcessWarnings(notices);
  for (const flag of config.secretFlags ?? []) notices.warn(secretFlagWarning(flag));
  const traces = await traceExport(config.trace, runtime, keys);
  const metrics = config.metricsPort === undefined ? undefined : createMetrics({ basePath: "/v1", output, ...(traces === undefined ? {} : { more: traces.metricsText }) });
  const opened = await openStore(config, { runtime, notices, metrics, traces });
  const observed = metrics?.observeStore(opened) ?? opened;
  const shared = await openCounters(config, { runtime, notices, metrics }, opened);
  const store = withCounters(traces?.tracing.store(observed) ?? observed, shared);
  let stopping = false;
  // Stops the rate limit's exchanges once the server stops: the database is closed under them.
  const stopped = new AbortController();
  const log = config.log === "off" ? undefined : createAccessLog({ format: config.log, output, keys, ...(traces === undefined ? {} : { traceIds: traces.tracing.idsOf }) });
  const limits: SharedLimits = { counters: shared?.counters, logger: notices, signal: stopped.signal };
  const server = await serve(serverApp(config, keys, store, log, () => stopping, metrics, traces, limits), { port: config.port, hostname: config.host, timeouts: config.edge.timeouts }).catch(listenFailed(config, config.port, "PORT", store));
  if (generated !== undefined) notices.info(keyNotice(generated, config.store));
  if (config.keyFile !== undefined) notices.info(`API keys from API_KEYS_FILE "${config.keyFile}": ${keys.size} (SIGHUP reads it again)`);
  // Printed before "listening on", which scripts wait for: by then every URL is out.
  const metricsServer = metrics === undefined ? undefined : await serveMetrics(serve, metrics, server, config, notices, store);

  // Closed once, by whichever of the stop and its grace gets there first.
  let storeClosing: Promise<void> | undefined;
  const closeStore = () => (storeClosing ??= store.close());
  let late = false;
  // Past the grace the store is still flushed and closed (its lock released, a pool closed), for a while.
  const exitLate = async () => {
    late = true;
    notices.error("animal-store: in-flight requests did not finish in time; exiting");
    log?.flush();
    const closing = closeStore().catch((error: unknown) => notices.error(`animal-store: the store did not close: ${error instanceof Error ? error.message : String(error)}`));
    await Promise.race([closing, new Promise((wait) => setTimeout(wait, LATE_STORE_CLOSE_MS))]);
    process.exit(1);
  };
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    stopped.abort();
    const stopStarted = performance.now();
    setTimeout(exitLate, SHUTDOWN_GRACE_MS);
    await server.close();
    await metricsServer?.close();
    await closeStore();
    if (config.pidFile !== undefined) await removePidFile(config.pidFile);
    // The spans of the last answers are sent within what is left of the grace, whatever the collector does.
    if (traces !== undefined) await flushTraces(traces, SHUTDOWN_GRACE_MS - TRACE_FLUSH_MARGIN_MS - (performance.now() - stopStarted), notices);
    if (late) return;
    log?.flush();
    notices.info("stopped");
    process.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, stop);
  // SIGHUP reads the key file again, and nothing else (every other setting needs a restart). Without
  // one there is nothing to read, and it stops as the other two do (a closed terminal or ssh
  // session), never with the default action that leaves the lock behind (docs/decisions.md).
  const reload = config.keyFile === undefined ? undefined : keyReloader(config.keyFile, keys, notices);
  process.on("SIGHUP", () => (stopping ? undefined : reload === undefined ? stop() : reload()));
  // Only now that every signal is handled: a SIGHUP sent as soon as the PID file or the line is seen
  // would otherwise meet the default action, which ends the process (seen on a busy machine).
  if (config.pidFile !== undefined) await writePidFile(config.pidFile).catch(async (error: unknown) => (await closeStore(), fail([`PID_FILE "${config.pidFile}" cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)}); set PID_FILE to a file in a folder this user can write`])));
  const features = featuresLine(config);
  if (features !== undefined) notices.info(features);
  notices.info(referenceLine(config, server.port));
  notices.info(`listening on http://${urlHost(config.host)}:${server.port}/v1`);
}

/** The API keys: the key file's (exit 2 naming its problems, each with its line), or `API_KEYS`'s, or the one generated. */
async function serverKeys(config: Config, generated: boolean): Promise<KeyRing> {
  if (config.keyFile === undefined) return createKeyRing(generated ? [{ name: "generated", key: config.apiKeys[0]! }] : config.apiKeys);
  const read = await readKeyFile(config.keyFile);
  if (!read.ok) return fail(read.issues.map((issue) => `API_KEYS_FILE "${config.keyFile}"${issue.startsWith("line ") ? ", " : ": "}${issue}`));
  try {
    return createKeyRing(read.value);
  } catch (error) {
    return fail([`API_KEYS_FILE "${config.keyFile}": ${(error as Error).message}`]);
  }
}

/** What the rate limit shares its counts through, when the store's instances can, where its lines go, and when it stops. */
interface SharedLimits {
  readonly counters: RateCounters | undefined;
  readonly logger: Notices;
  readonly signal: AbortSignal;
}

/** The API with its plugs, and its wraps around it. */
function serverApp(
  config: Config,
  keys: KeyRing,
  store: PetStore,
  log: AccessLog | undefined,
  stopping: () => boolean,
  metrics: Metrics | undefined,
  traces: TraceExport | undefined,
  limits: SharedLimits,
): App {
  const { publicUrl, trustProxy } = config.edge;
  const app = createApp({
    store,
    apiKeys: keys,
    trustProxy,
    plugs: serverPlugs(config, stopping, metrics, limits),
    ...(publicUrl === "" ? {} : { publicUrl }),
    ...(log === undefined ? {} : { onError: log.reportError }),
  });
  return serverWraps(config, log, metrics, traces).reduce((wrapped, wrap) => wrap(wrapped), app);
}

/**
 * The server's wraps, innermost first: `Server-Timing` (the app's own time), the spans when traces
 * are exported (so the log can name a request's span), the access log, then the metrics around all
 * (a request's latency includes the log's work). With `LOG_HEALTH=off` the probes pass the spans
 * and the log by.
 */
function serverWraps(config: Config, log: AccessLog | undefined, metrics: Metrics | undefined, traces: TraceExport | undefined): Wrap[] {
  const quiet = (wrap: Wrap) => (config.logHealth ? wrap : exceptProbes(wrap));
  return [
    ...(config.serverTiming === true ? [serverTiming] : []),
    ...(traces === undefined ? [] : [quiet(traces.tracing.wrap)]),
    ...(log === undefined ? [] : [quiet(log.wrap)]),
    ...(metrics === undefined ? [] : [metrics.wrap]),
  ];
}

/**
 * The server's plugs. Each step is asked at its time whatever the order (`Plug` in src/types.ts);
 * among late steps the rate limit comes first, so CORS's preflights and the reference page are
 * counted. The metrics' plug reads what the others report, as `/health` does.
 */
function serverPlugs(config: Config, stopping: () => boolean, metrics: Metrics | undefined, limits: SharedLimits): Plug[] {
  const { counters, logger, signal } = limits;
  return [
    health({ stopping }),
    ...(config.rateLimit === undefined ? [] : [rateLimit(config.rateLimit, counters === undefined ? {} : { counters, syncMs: config.rateLimitSyncMs, logger, signal })]),
    ...(config.corsOrigins === undefined ? [] : [cors(config.corsOrigins)]),
    referencePage(),
    ...(metrics === undefined ? [] : [metrics.plug]),
  ];
}

/** Starts the span export when it is configured (the server's own, or the runtime's OpenTelemetry); exits 1 naming the install line when the runtime's API package is missing. */
async function traceExport(settings: TraceSettings | undefined, runtime: RuntimeOptions, keys: KeyRing): Promise<TraceExport | undefined> {
  if (settings === undefined && runtime.exportsTraces !== true) return undefined;
  try {
    const { startRuntimeTraces, startTraceExport } = await import("./_otlp-export.ts");
    return runtime.exportsTraces === true ? await startRuntimeTraces(keys) : startTraceExport(settings!, keys);
  } catch (error) {
    return fail([error instanceof Error ? error.message : String(error)], 1);
  }
}

/** Sends the spans still queued within `ms`, and says how many never reached the collector. */
async function flushTraces(traces: TraceExport, ms: number, notices: Notices): Promise<void> {
  await traces.flush(Math.max(0, ms));
  const { queueFull, exportFailed } = traces.lost();
  if (queueFull + exportFailed > 0) notices.error(`animal-store: ${queueFull + exportFailed} spans were not exported (${queueFull} dropped with the queue full, ${exportFailed} in failed exports)`);
}

/** Serves `GET /metrics` on its own port, counting the API listener's connections where its runtime can. */
async function serveMetrics(serve: Serve, metrics: Metrics, api: Server, config: Config, notices: Notices, store: PetStore): Promise<Server> {
  if (api.connections !== undefined) metrics.countConnections(api.connections);
  const server = await serve(metrics.app, { port: config.metricsPort ?? 0, hostname: config.host, timeouts: config.edge.timeouts }).catch(listenFailed(config, config.metricsPort ?? 0, "METRICS_PORT", store));
  notices.info(`metrics on http://${urlHost(config.host)}:${server.port}${METRICS_PATH}`);
  return server;
}

/** The key to use when `API_KEYS` is not set: the one kept where the store says (beside its file), unless nothing is kept. */
async function generatedKey(config: Config): Promise<GeneratedKey> {
  const key = config.apiKeys[0] ?? "";
  const folder = serverStore(config).keyFolder(config);
  if (folder === undefined) return { key, reused: false };
  try {
    return await keepApiKey(folder, key);
  } catch (error) {
    return fail([error instanceof Error ? error.message : String(error)], 1);
  }
}

/** The store the settings name, opened as its row says; exits 1 naming why when it cannot open. */
async function openStore(config: Config, context: OpenContext): Promise<PetStore> {
  try {
    return await serverStore(config).open(config, context);
  } catch (error) {
    return fail([error instanceof Error ? error.message : String(error)], 1);
  }
}

/** The counts the store's instances share a rate limit through, with `RATE_LIMIT` on a store whose row has them; exits 1 naming why when they cannot open. */
async function openCounters(config: Config, context: OpenContext, store: PetStore): Promise<SharedCounters | undefined> {
  const open = serverStore(config).openRateCounters;
  if (config.rateLimit === undefined || open === undefined) return undefined;
  try {
    return await open(config, context);
  } catch (error) {
    await store.close();
    return fail([error instanceof Error ? error.message : String(error)], 1);
  }
}

/** The store, whose `close` lets go of the shared counts too. */
function withCounters(store: PetStore, shared: SharedCounters | undefined): PetStore {
  return shared === undefined ? store : { ...store, close: async () => (await store.close(), await shared.close()) };
}

/**
 * Closes the store (and its lock) and exits with one line naming the address, the setting and the fix
 * when listening fails: 1 for an address in use (the settings are fine, the machine is busy), 2 for a
 * setting that cannot work here (a port this user may not take), never a runtime's stack trace.
 */
function listenFailed(config: Config, port: number, setting: string, store: PetStore): (error: unknown) => Promise<never> {
  return async (error) => {
    await store.close();
    const problem = listenProblem(error, `${urlHost(config.host)}:${port}`, setting);
    return fail([problem.message], problem.exitCode);
  };
}

/** Prints each problem and exits: 2 for bad settings, 1 for a store that cannot open or an address in use. */
function fail(problems: readonly string[], exitCode = 2): never {
  for (const problem of problems) console.error(`animal-store: ${escapeControls(problem)}`);
  process.exit(exitCode);
}
