/**
 * @module
 * What the server says as it starts, besides where it listens: the address its reference page is
 * reached at, and which optional features are on.
 */
import type { Config } from "./config.ts";
import { describeRateLimit } from "../../src/plugs/rate-limit/mod.ts";
import { reachableHost, urlHost } from "../_serve.ts";
import { serverStore } from "./stores.ts";

/**
 * Where a browser reaches the reference page: under `PUBLIC_URL` when it is set, else on this
 * machine, at the loopback for a wildcard `HOST` (`0.0.0.0` is where it listens, not an address a
 * browser goes to: in a container, the published port is reached on the host's loopback).
 */
export function referenceLine(config: Config, port: number): string {
  const { publicUrl } = config.edge;
  return `API reference: ${publicUrl === "" ? `http://${urlHost(reachableHost(config.host))}:${port}` : publicUrl}/`;
}

/**
 * The optional features that are on, each as its setting makes it, in one line; `undefined` when
 * none is (the default), so a start that prints none has them all off. Never a key, header or secret:
 * the traces' URL is printed without its user and password.
 */
export function featuresLine(config: Config): string | undefined {
  const traces = config.trace === undefined ? undefined : new URL(config.trace.url);
  if (traces !== undefined) traces.username = traces.password = "";
  const on = [
    config.rateLimit === undefined ? undefined : `rate limit per key (${describeRateLimit(config.rateLimit)}${sharedBy(config)})`,
    config.corsOrigins === undefined ? undefined : `CORS (${config.corsOrigins === "*" ? "any origin" : config.corsOrigins.join(", ")})`,
    config.edge.trustProxy === false ? undefined : `trusted proxy (${config.edge.trustProxy} headers)`,
    traces === undefined ? undefined : `traces (to ${traces.href}, ${config.trace!.protocol})`,
    config.serverTiming === true ? "Server-Timing" : undefined,
  ].filter((feature) => feature !== undefined);
  return on.length === 0 ? undefined : `optional features on: ${on.join(", ")}`;
}

/** Whose counts the rate limit shares, when its store's instances share them (`openRateCounters`); else nothing. */
function sharedBy(config: Config): string {
  return serverStore(config).openRateCounters === undefined ? "" : ", shared by the instances on the database";
}
