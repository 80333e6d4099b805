import type { Runtime } from "./server-process.ts";
import { durabilitySuite } from "./durability-suite.ts";
import { httpSuite } from "./http-suite.ts";
import { lifecycleSuite } from "./lifecycle-suite.ts";

const RUNTIMES: readonly Runtime[] = ["bun", "deno", "node"];

for (const runtime of RUNTIMES) {
  httpSuite(runtime, "memory");
  httpSuite(runtime, "file");
  lifecycleSuite(runtime);
  durabilitySuite(runtime);
}
