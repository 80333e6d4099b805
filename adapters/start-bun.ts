/**
 * @module
 * Entry point: `bun adapters/start-bun.ts` runs the standalone server on Bun.
 */
import { serveBun } from "./bun.ts";
import { start } from "./start.ts";

await start(serveBun);
