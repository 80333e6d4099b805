import { expect, test } from "bun:test";
import { join } from "node:path";
import { useEveryMember } from "./fixtures/headers-members.ts";
import { standInRequest } from "./fixtures/node-stand-ins.ts";

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

test("the lazy request's headers answer every Headers member as a real Headers of the same lines does", async () => {
  const lines: [string, string][] = [["Accept", "*/*"], ["X-Multi", "a"], ["x-multi", "b"], ["Set-Cookie", "s=1"], ["Set-Cookie", "t=2"], ["X-Gone", "1"]];
  const request = await standInRequest("http://pets.test/v1/pets", { headers: lines });
  const real = new Headers(lines);
  real.set("host", "pets.test");
  expect(useEveryMember(request.headers)).toEqual(useEveryMember(real));
});
