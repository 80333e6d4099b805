/**
 * @module
 * The runners outside `bun test` (packaging, browser, Prometheus): named checks that pass unless they
 * throw, and the closing line `<name>: N passed, M failed` that `.ci/run` adds up; and the waits
 * and free ports they share.
 */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";

/** One runner's checks and their counts. */
export interface Checks {
  /** Runs one check; it passes unless `body` throws. */
  check(name: string, body: () => Promise<void> | void): Promise<void>;
  /** Counts a failure met outside any check (the run itself could not go on), printing it. */
  fail(what: string, error?: unknown): void;
  /** Whether any check has failed so far. */
  anyFailed(): boolean;
  /** Prints the closing line and sets the exit code: 1 when anything failed. */
  finish(): void;
}

/** The checks of the runner called `name`. */
export function createChecks(name: string): Checks {
  let passed = 0;
  let failed = 0;
  function fail(what: string, error?: unknown): void {
    failed++;
    const detail = error === undefined ? "" : `\n  ${error instanceof Error ? error.stack ?? error.message : String(error)}`;
    console.log(`FAIL ${what}${detail}`);
  }
  return {
    async check(what, body) {
      try {
        await body();
        passed++;
        console.log(`PASS ${what}`);
      } catch (error) {
        fail(what, error instanceof Error ? error.message : error);
      }
    },
    fail,
    anyFailed: () => failed > 0,
    finish() {
      console.log(`${name}: ${passed} passed, ${failed} failed`);
      process.exitCode = failed > 0 ? 1 : 0;
    },
  };
}

/** Waits until `find` returns a value (a throw counts as not yet), looking every `pollMs`, at most `timeoutMs`; throws naming what was awaited. */
export async function waitFor<T>(what: string, find: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000, pollMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await Promise.resolve().then(find).catch(() => undefined);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** A port free a moment ago, for a program that prints no port when told to listen on port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
