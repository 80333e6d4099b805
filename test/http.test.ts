import { httpSuite } from "./http-suite.ts";
import { lifecycleSuite } from "./lifecycle-suite.ts";

httpSuite("bun", () => ({ STORE: "memory" }));
lifecycleSuite("bun");
