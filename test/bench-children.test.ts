import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { waitFor } from "./checks.ts";

/** The processes the fixture started, killed here if the test failed and left them. */
let started: number[] = [];

afterEach(() => {
  for (const pid of started) if (existsSync(`/proc/${pid}`)) process.kill(pid, "SIGKILL");
  started = [];
});

/** Runs the fixture until it prints its children's ids; returns it and them. */
async function startFixture(mode = "wait"): Promise<{ script: ReturnType<typeof Bun.spawn>; pids: number[] }> {
  const script = Bun.spawn([process.execPath, "test/fixtures/bench-children.ts", mode], { stdout: "pipe", stderr: "pipe" });
  const reader = (script.stdout as ReadableStream<Uint8Array>).getReader();
  let output = "";
  const pids = await waitFor("the fixture's children", async () => {
    const { value, done } = await reader.read();
    if (!done) output += new TextDecoder().decode(value);
    return /^children (\d+) (\d+)$/m.exec(output)?.slice(1).map(Number);
  }, 20_000);
  started = pids;
  return { script, pids };
}

/** Whether process `pid` still runs (a zombie, dead but not yet reaped by its parent, does not). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

describe("bench/children.ts: a benchmark leaves nothing running", () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130], ["SIGHUP", 129]] as const) {
    test(`a benchmark sent ${signal} alone exits ${code} and its child and grandchild are gone`, async () => {
      const { script, pids } = await startFixture();
      script.kill(signal);
      expect(await script.exited).toBe(code);
      await waitFor("the children gone", () => (pids.some(running) ? undefined : true), 10_000);
    }, 30_000);
  }

  test("a benchmark that fails leaves no child either", async () => {
    const { script, pids } = await startFixture("error");
    expect(await script.exited).toBe(1);
    await waitFor("the children gone", () => (pids.some(running) ? undefined : true), 10_000);
  }, 30_000);
});
