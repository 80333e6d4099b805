/**
 * @module
 * The runners outside `bun test` (packaging, browser, Prometheus): named checks that pass unless they
 * throw, and the closing line `<name>: N passed, M failed` that `.ci/run` adds up.
 */

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
