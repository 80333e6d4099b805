/**
 * @module
 * Entry point: `deno run --no-prompt --allow-net --allow-env --allow-read=data --allow-write=data
 * adapters/server/start-deno.ts` runs the standalone server on Deno.
 */
import type { Config } from "./config.ts";
import type { Serve } from "../_serve.ts";
import { serveDeno } from "../deno.ts";
import { FastResponse, serveNode } from "../node.ts";
import { connectPostgresJs } from "./postgres-connection.ts";
import { start } from "./start.ts";

/**
 * Deno's `node:http` unless `DENO_SERVER=Deno.serve`: `Deno.serve` has no header or idle timeout in
 * Deno 2.9, so a client could hold connections open without end; `node:http` on Deno keeps all three.
 */
function chooseServe(config: Config): Serve {
  if (config.edge.denoServer === "Deno.serve") return serveDeno;
  // As in start-node.ts: the app's responses become ones the Node adapter writes without reading a
  // stream. Not with `Deno.serve`, which takes real `Response`s only.
  globalThis.Response = FastResponse as unknown as typeof Response;
  return serveNode;
}

// With OTEL_DENO=true Deno exports OpenTelemetry itself: the server's spans go through it.
await start(chooseServe, { connectPostgres: connectPostgresJs, exportsTraces: Deno.env.get("OTEL_DENO") === "true" });
