import type { Runtime } from "./server-process.ts";
import { STORE_NAMES } from "../adapters/server/stores.ts";
import { OTHER_NODE_LINES } from "./server-process.ts";
import { durabilitySuite } from "./durability-suite.ts";
import { hardeningSuite } from "./hardening-suite.ts";
import { hostileSuite } from "./hostile-suite.ts";
import { httpSuite, serverTarget } from "./http-suite.ts";
import { idempotencySuite } from "./idempotency-suite.ts";
import { keysSuite } from "./keys-suite.ts";
import { lifecycleSuite } from "./lifecycle-suite.ts";
import { operationsSuite } from "./operations-suite.ts";

const RUNTIMES: readonly Runtime[] = ["bun", "deno", "node"];

for (const runtime of RUNTIMES) {
  for (const store of STORE_NAMES) httpSuite(`HTTP on ${runtime} with the ${store} store`, serverTarget(runtime, store));
  lifecycleSuite(runtime);
  durabilitySuite(runtime);
  idempotencySuite(runtime);
  operationsSuite(runtime);
  keysSuite(runtime);
  hardeningSuite(runtime);
  hostileSuite(runtime);
}

// The standalone server on Deno with `DENO_SERVER=Deno.serve`: what depends on the HTTP server.
httpSuite("HTTP on deno-serve with the memory store", serverTarget("deno-serve", "memory"));
lifecycleSuite("deno-serve");
keysSuite("deno-serve");
hardeningSuite("deno-serve");
hostileSuite("deno-serve");

// The other maintained Node.js lines (`node` is the one on PATH): what depends on the runtime's HTTP server.
for (const runtime of OTHER_NODE_LINES) httpSuite(`HTTP on ${runtime} with the memory store`, serverTarget(runtime, "memory"));
