import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname } from "node:path";

test("a bun test run removes the temp folders it made under data/test-runs", async () => {
  const run = Bun.spawn(["bun", "test", "./test/fixtures/temp-folder-user.ts"], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  const file = /temp folder: (\S+)/.exec(stdout + stderr)?.[1];
  expect({ code, file }).toEqual({ code: 0, file: expect.stringMatching(/^data\/test-runs\/run-/) });
  expect(existsSync(dirname(file!))).toBe(false);
}, 20_000);
