import { durabilitySuite } from "./durability-suite.ts";
import { httpSuite } from "./http-suite.ts";
import { lifecycleSuite } from "./lifecycle-suite.ts";

httpSuite("bun", "memory");
httpSuite("bun", "file");
lifecycleSuite("bun");
durabilitySuite("bun");
