/**
 * @module
 * What every runtime adapter provides: a function that serves an app on a port.
 */
import type { App } from "../src/mod.ts";
import type { Timeouts } from "./_timeouts.ts";

/** Where to listen. Errors an adapter meets outside the app go to the app's `onError`. */
export interface ServeOptions {
  readonly port: number;
  readonly hostname: string;
  /** How long to wait on slow or idle clients; `DEFAULT_TIMEOUTS` when omitted. */
  readonly timeouts?: Timeouts;
}

/** A listening server. */
export interface Server {
  /** The port actually bound (the real one when asked for port 0). */
  readonly port: number;
  /** Stops taking requests and resolves once every in-flight request is answered (see `_draining.ts`). */
  close(): Promise<void>;
  /** How many connections are open, where the runtime's server can tell (`node:http`; not `Bun.serve` or `Deno.serve`). */
  connections?(): Promise<number>;
}

/** Starts serving an app; resolves once the server listens. */
export type Serve = (app: App, options: ServeOptions) => Promise<Server>;

/** The address a client on this machine reaches a server listening on `host` at: the loopback for a wildcard address. */
export function reachableHost(host: string): string {
  return host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
}

/** A host as it appears in a URL: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
