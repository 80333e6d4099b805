/**
 * @module
 * `npm run start:node` runs the TypeScript sources as `tsc` emits them, on each tested Node line as
 * it is (types stripped by Node) and with Node's type stripping off (the loader's esbuild path, as on
 * Node 20): a function that makes a closure named by its binding calls no `__name` helper (tsx's
 * `keepNames`, a cost on each request that makes one), a stack trace names the function and the
 * `.ts` file's line, and nothing is printed besides.
 */
import { beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { installNodeLines, NODE_LINES, nodeBinary } from "./node-lines.ts";

/** The module `npm run start:node` imports before the entry point. */
const LOADER = /--import (\S+)/.exec(packageJson.scripts["start:node"])?.[1] ?? "";
const FIXTURE = resolve("test/fixtures/named-closure.ts");

beforeAll(installNodeLines, 300_000);

/** What the fixture prints when run through the loader on a Node line, with Node's `flags`. */
async function runFixture(binary: string, flags: readonly string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const child = Bun.spawn([binary, ...flags, "--import", LOADER, FIXTURE], { stdout: "pipe", stderr: "pipe", timeout: 20_000 });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

for (const line of NODE_LINES) {
  for (const [how, flags] of [["its own type stripping", []], ["type stripping off", ["--no-experimental-strip-types"]]] as const) {
    test(`Node ${line} with ${how}: no __name helper, the function and the .ts line in a stack trace, nothing else printed`, async () => {
      const { stdout, stderr, code } = await runFixture(nodeBinary(line), flags);
      expect({ stderr, code }).toEqual({ stderr: "", code: 0 });
      const printed = JSON.parse(stdout) as { helper: boolean; frame: string };
      expect(printed.helper).toBe(false);
      expect(printed.frame.replace("file://", "")).toBe(`at thrower (${FIXTURE}:11:11)`);
    }, 30_000);
  }
}
