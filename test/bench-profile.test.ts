import { describe, expect, test } from "bun:test";
import type { CpuProfile } from "../bench/profile-summary.ts";
import { cpuByPlace, selfTimes, timeByOrigin } from "../bench/profile-summary.ts";

const ROOT = "/work/checkout";

/** A profile of a few samples 100 µs apart: the app's `respond`, a runtime function, idle and GC. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 } },
    { id: 2, callFrame: { functionName: "respond", url: `file://${ROOT}/src/app.ts`, lineNumber: 129 } },
    { id: 3, callFrame: { functionName: "writeHead", url: "node:_http_server", lineNumber: 340 } },
    { id: 4, callFrame: { functionName: "(idle)", url: "", lineNumber: -1 } },
    { id: 5, callFrame: { functionName: "(garbage collector)", url: "", lineNumber: -1 } },
    { id: 6, callFrame: { functionName: "", url: `${ROOT}/adapters/server/access-log.ts`, lineNumber: 9 } },
    { id: 7, callFrame: { functionName: "lex", url: `file://${ROOT}/node_modules/tsx/dist/index.mjs`, lineNumber: 0 } },
  ],
  startTime: 1_000,
  endTime: 2_000,
  // At 1,000 (root), 1,100 respond, 1,200 respond, 1,300 writeHead, 1,400 idle, 1,500 GC, 1,600 log, 1,700 tsx, 1,800 respond.
  samples: [1, 2, 2, 3, 4, 5, 6, 7, 2],
  timeDeltas: [0, 100, 100, 100, 100, 100, 100, 100, 100],
};

describe("the benchmark's profile summary", () => {
  test("every sample counts for the median time between samples, whatever the gap after it", () => {
    const gappy: CpuProfile = { ...profile, timeDeltas: [0, 100, 100, 900, 100, 100, 100, 100, 100] };
    expect(selfTimes(gappy, 1_000, 3_000, ROOT).find((time) => time.name.startsWith("respond"))?.micros).toBe(300);
  });

  test("self time per function, the project's named by file and line, most first", () => {
    const times = selfTimes(profile, 1_000, 1_800, ROOT);
    expect(times[0]).toEqual({ name: "respond (src/app.ts:130)", origin: "project", micros: 200 });
    expect(times).toContainEqual({ name: "(anonymous) (adapters/server/access-log.ts:10)", origin: "project", micros: 100 });
    expect(times).toContainEqual({ name: "writeHead (node:_http_server:341)", origin: "runtime", micros: 100 });
    expect(times).toContainEqual({ name: "lex (node_modules/tsx/dist/index.mjs:1)", origin: "runtime", micros: 100 });
  });

  test("only the samples inside the window count", () => {
    const times = selfTimes(profile, 1_250, 1_550, ROOT);
    expect(times.map((time) => time.name).sort()).toEqual(["(garbage collector)", "(idle)", "writeHead (node:_http_server:341)"]);
  });

  test("the self time is summed by where each function lives", () => {
    expect(timeByOrigin(selfTimes(profile, 1_000, 2_000, ROOT))).toEqual({ project: 400, runtime: 200, idle: 100, "garbage collector": 100, program: 0 });
  });

  test("perf's shares are summed by where the code ran", () => {
    const report = [
      "# Samples: 11K of event 'cpu-clock'",
      "#",
      "    48.03%  bun.exe          ",
      "    41.49%  [kernel.kallsyms]",
      "     7.40%  [JIT] tid 3604   ",
      "     2.80%  libc.so.6        ",
      "     0.28%  [vdso]           ",
    ].join("\n");
    const shares = cpuByPlace(report, "bun.exe");
    expect(shares).toEqual({ kernel: 41.49, "runtime native": 48.03, "JIT-compiled JavaScript": 7.4, libc: 2.8, other: 0.28 });
  });
});
