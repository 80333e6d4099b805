/**
 * @module
 * The settings of how the standalone server meets the network: the public URL it writes into
 * links, whether it trusts a proxy's forwarded headers, and its timeouts.
 */
import type { Timeouts } from "./timeouts.ts";
import { publicUrlProblem } from "../src/public-origin.ts";
import { DEFAULT_TIMEOUTS } from "./timeouts.ts";

/** Public URL, proxy trust and timeouts. */
export interface EdgeSettings {
  /** The URL clients reach the service at (`PUBLIC_URL`), or `""` to use the request's own. */
  readonly publicUrl: string;
  readonly trustProxy: boolean;
  readonly timeouts: Timeouts;
}

/** The variables read here, with the flags that mirror them. */
export const EDGE_FLAGS: ReadonlyMap<string, string> = new Map([
  ["--public-url", "PUBLIC_URL"],
  ["--trust-proxy", "TRUST_PROXY"],
  ["--header-timeout", "HEADER_TIMEOUT"],
  ["--body-timeout", "BODY_TIMEOUT"],
  ["--idle-timeout", "IDLE_TIMEOUT"],
]);

/** Reads the edge settings through `setting`, adding every problem found to `problems`. */
export function readEdgeSettings(setting: (name: string) => string | undefined, problems: string[]): EdgeSettings {
  const publicUrl = setting("PUBLIC_URL") ?? "";
  const problem = publicUrl === "" ? undefined : publicUrlProblem(publicUrl);
  if (problem !== undefined) problems.push(`PUBLIC_URL ${problem}, got "${publicUrl}"`);
  const trust = setting("TRUST_PROXY") || "false";
  if (trust !== "true" && trust !== "false") problems.push(`TRUST_PROXY must be "true" or "false", got "${trust}"`);
  const seconds = (name: string, fallback: number) => {
    const text = setting(name) || String(fallback);
    // Bun counts its idle timeout in whole seconds, at most 255.
    if (/^[0-9]{1,3}$/.test(text) && Number(text) >= 1 && Number(text) <= 255) return Number(text);
    problems.push(`${name} must be a whole number of seconds from 1 to 255, got "${text}"`);
    return fallback;
  };
  const timeouts = {
    headerSeconds: seconds("HEADER_TIMEOUT", DEFAULT_TIMEOUTS.headerSeconds),
    bodySeconds: seconds("BODY_TIMEOUT", DEFAULT_TIMEOUTS.bodySeconds),
    idleSeconds: seconds("IDLE_TIMEOUT", DEFAULT_TIMEOUTS.idleSeconds),
  };
  return { publicUrl, trustProxy: trust === "true", timeouts };
}
