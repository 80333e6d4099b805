/**
 * @module
 * Entry point: `deno run --no-prompt --allow-net --allow-env --allow-read=data --allow-write=data
 * adapters/start-deno.ts` runs the standalone server on Deno.
 */
import { serveDeno } from "./deno.ts";
import { connectPostgresJs } from "./postgres-connection.ts";
import { start } from "./start.ts";

await start(serveDeno, { connectPostgres: connectPostgresJs });
