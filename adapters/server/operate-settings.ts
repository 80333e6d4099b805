/**
 * @module
 * The standalone server's settings for operating it: the per-key rate limit (`RATE_LIMIT`, and
 * `RATE_LIMIT_SYNC_MS`, how often instances on one database exchange its counts), the port
 * `GET /metrics` is served on (`METRICS_PORT`) and the `Server-Timing` header (`SERVER_TIMING`).
 * Each is off unless set.
 */
import type { RateLimit } from "../../src/plugs/rate-limit/mod.ts";
import { parseRateLimit, syncMsProblem } from "../../src/plugs/rate-limit/mod.ts";

/** The rate limit, the metrics port and `Server-Timing`; each is off when absent. */
export interface OperateSettings {
  readonly rateLimit?: RateLimit;
  /** Milliseconds between an instance's exchanges of the rate limit's shared counts (with a store that shares them). */
  readonly rateLimitSyncMs: number;
  /** The port of the metrics listener; 0 picks a free one. */
  readonly metricsPort?: number;
  /** Present when every answer carries `Server-Timing` (`SERVER_TIMING=on`). */
  readonly serverTiming?: true;
}

/** Reads the settings through `setting`, adding every problem found to `problems`; `port` is the API's, which metrics may not share. */
export function readOperateSettings(setting: (name: string) => string | undefined, port: number, problems: string[]): OperateSettings {
  const limitText = setting("RATE_LIMIT") || undefined;
  const limit = limitText === undefined ? undefined : parseRateLimit(limitText);
  if (limit !== undefined && !limit.ok) problems.push(...limit.issues.map((issue) => `RATE_LIMIT ${issue}`));
  const syncText = setting("RATE_LIMIT_SYNC_MS") ?? "";
  // Digits only: `1e3`, `0x10` and ` 10` are numbers to `Number` but not what the setting says it takes.
  const syncMs = /^[0-9]{1,9}$/.test(syncText) ? Number(syncText) : Number.NaN;
  const syncProblem = syncMsProblem(syncMs, `"${syncText}"`);
  if (syncProblem !== undefined) problems.push(`RATE_LIMIT_SYNC_MS ${syncProblem}`);
  const portText = setting("METRICS_PORT") || undefined;
  const metricsPort = portText === undefined ? undefined : /^[0-9]{1,5}$/.test(portText) ? Number(portText) : -1;
  if (metricsPort !== undefined && (metricsPort < 0 || metricsPort > 65535)) {
    problems.push(`METRICS_PORT must be an integer from 0 to 65535, got "${portText}"`);
  } else if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    problems.push(`METRICS_PORT must differ from PORT (metrics are served on a listener of their own), got ${metricsPort} for both`);
  }
  const timing = setting("SERVER_TIMING");
  if (timing !== "on" && timing !== "off") problems.push(`SERVER_TIMING must be "on" or "off", got "${timing}"`);
  return { ...(limit?.ok ? { rateLimit: limit.value } : {}), rateLimitSyncMs: syncMs, ...(metricsPort === undefined ? {} : { metricsPort }), ...(timing === "on" ? { serverTiming: true } : {}) };
}
