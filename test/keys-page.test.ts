/**
 * docs/operating.md's "API keys" section as printed, on `npm start` (issue 50; the executable's run is in
 * `executable.test.ts`): two named keys made by `animal-store key`, a read-only key refused a create, the
 * names in the access log, a rotation with an overlap and a revocation, each by SIGHUP to the pid in
 * `PID_FILE`, without a restart.
 */
import { expect, test } from "bun:test";
import { parseKeyFile } from "../src/mod.ts";
import { exampleKeyFile, expectPageRun, runKeysPage } from "./keys-page.ts";

test("the page's example key file is one the server takes", () => {
  expect(parseKeyFile(exampleKeyFile(), Date.parse("2026-06-01T00:00:00Z")).ok).toBe(true);
});

test("docs/operating.md's API keys section runs as printed on npm start: named keys, a 403, the names logged, a rotation with an overlap and a revocation by SIGHUP (issue 50)", async () => {
  expectPageRun(await runKeysPage());
}, 90_000);
