import { expect, test } from "bun:test";
import { join } from "node:path";

/** The in-process suites that go through `helpers.ts`, and so through the stand-ins when asked to. */
const SUITES = ["auth", "create-pet", "get-pet", "list-pets", "routing", "etag", "idempotency", "public-origin", "route-headers", "access-log", "health"];

test("the in-process suites pass with Node's stand-ins alone: the lazy request in, FastResponse out", () => {
  const run = Bun.spawnSync([process.execPath, "test", "--preload", "./test/fixtures/node-stand-ins.ts", ...SUITES.map((name) => `test/${name}.test.ts`)], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, STAND_INS: "node" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = run.stdout.toString() + run.stderr.toString();
  const failures = output.split("\n").filter((line) => line.startsWith("(fail)"));
  expect(failures).toEqual([]);
  expect(output).toMatch(/\n\s*0 fail\n/);
  expect(run.exitCode).toBe(0);
}, 120_000);
