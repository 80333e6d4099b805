/**
 * @module
 * The settings of how the standalone server meets the network: the public URL it writes into
 * links, whether it trusts a proxy's forwarded headers, its timeouts, and which server Deno runs.
 */
import type { Timeouts } from "../_timeouts.ts";
import type { TrustedProxyHeader } from "../../src/mod.ts";
import { publicUrlProblem } from "../../src/_server-entry.ts";
import { DEFAULT_TIMEOUTS } from "../_timeouts.ts";

/**
 * The HTTP server the standalone server runs on Deno: Deno's `node:http`, which keeps all three
 * timeouts, or `Deno.serve`, faster but with no header or idle timeout (`docs/running.md`, "Slow clients").
 */
export type DenoServer = "node:http" | "Deno.serve";

/** Public URL, proxy trust, timeouts and Deno's server. */
export interface EdgeSettings {
  /** The URL clients reach the service at (`PUBLIC_URL`), or `""` to use the request's own. */
  readonly publicUrl: string;
  /** The one header family the proxy in front sets (`TRUST_PROXY`), or `false`. */
  readonly trustProxy: TrustedProxyHeader | false;
  readonly timeouts: Timeouts;
  /** Read on Deno only. */
  readonly denoServer: DenoServer;
}

/** Reads the edge settings through `setting` (which gives each default, `settings.ts`), adding every problem found to `problems`. */
export function readEdgeSettings(setting: (name: string) => string | undefined, problems: string[]): EdgeSettings {
  const publicUrl = setting("PUBLIC_URL") ?? "";
  const problem = publicUrl === "" ? undefined : publicUrlProblem(publicUrl);
  if (problem !== undefined) problems.push(`PUBLIC_URL ${problem}, got "${publicUrl}"`);
  const trustProxy = readTrustProxy(setting("TRUST_PROXY") ?? "", problems);
  const seconds = (name: string, fallback: number) => {
    const text = setting(name) ?? "";
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
  const denoServer = setting("DENO_SERVER") ?? "";
  if (denoServer !== "node:http" && denoServer !== "Deno.serve") problems.push(`DENO_SERVER must be "node:http" or "Deno.serve", got "${denoServer}"`);
  return { publicUrl, trustProxy, timeouts, denoServer: denoServer as DenoServer };
}

/**
 * `TRUST_PROXY`: `false`, or the header family the proxy sets. `true`, which trusted `Forwarded`
 * before `X-Forwarded-For`, is refused rather than read as either: behind a proxy that sets one
 * and passes the other through, guessing wrong lets every client choose its own address.
 */
function readTrustProxy(value: string, problems: string[]): TrustedProxyHeader | false {
  if (value === "false") return false;
  if (value === "x-forwarded" || value === "forwarded") return value;
  problems.push(value === "true"
    ? 'TRUST_PROXY=true no longer says which header the proxy sets: set TRUST_PROXY=x-forwarded for a proxy that sets X-Forwarded-For (nginx as docs/operating.md shows), or TRUST_PROXY=forwarded for one that sets Forwarded'
    : `TRUST_PROXY must be "false", "x-forwarded" or "forwarded", got "${value}"`);
  return false;
}
