/**
 * @module
 * What `animal-store export` and `import` share besides the format: how they open a store, where
 * their notices go, and how they name the store and refuse.
 */
import process from "node:process";
import type { PetStore } from "../../src/mod.ts";
import type { Config } from "./config.ts";
import type { Notices } from "./notices.ts";
import { serverStore } from "./stores.ts";

/** Opens the store the settings name, as the server does; prints why and exits 1 when it cannot. */
export type OpenStore = (config: Config) => Promise<PetStore>;

/** Notices for a command whose stdout may carry data: every line goes to stderr. */
export const NOTICES_TO_STDERR: Notices = {
  info: (message) => void process.stderr.write(`${message}\n`),
  warn: (message) => void process.stderr.write(`${message}\n`),
  error: (message) => void process.stderr.write(`${message}\n`),
};

/** The store's name for a line, as its row says: the file, the database, memory. */
export function storeName(config: Config): string {
  return serverStore(config).describe(config);
}

/** The signals that stop a command, as they stop the server (SIGHUP: the terminal or ssh session closed). */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Calls `stop` with the signal's name on SIGINT, SIGTERM or SIGHUP, until the returned function is called. */
export function onStopSignals(stop: (name: string) => void): () => void {
  const handlers = STOP_SIGNALS.map((name) => [name, () => stop(name)] as const);
  for (const [name, handler] of handlers) process.on(name, handler);
  return () => {
    for (const [name, handler] of handlers) process.off(name, handler);
  };
}

/** Prints each problem on a line of its own, and resolves with exit code 2. */
export function refuse(command: string, problems: readonly string[]): number {
  for (const problem of problems) process.stderr.write(`animal-store ${command}: ${problem}\n`);
  return 2;
}
