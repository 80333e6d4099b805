/**
 * @module
 * What every runtime adapter provides: a function that serves a Fetch API handler on a port.
 */
import type { App, Reply } from "../src/mod.ts";
import { errorReply } from "../src/mod.ts";

/** Where and how to listen. */
export interface ServeOptions {
  readonly port: number;
  readonly hostname: string;
  /** Called with errors that escape the handler; they are answered with a 500 error object. */
  readonly onError?: (error: unknown) => void;
}

/** A listening server. */
export interface Server {
  /** The port actually bound (the real one when asked for port 0). */
  readonly port: number;
  /** Stops accepting connections and resolves once every in-flight request is answered. */
  close(): Promise<void>;
}

/** Starts serving an app; resolves once the server listens. */
export type Serve = (app: App, options: ServeOptions) => Promise<Server>;

/** The answer to a request that a handler failed to answer: a 500 error object, no details. */
export const INTERNAL_ERROR: Reply = errorReply("internal_error", "An unexpected error occurred");
