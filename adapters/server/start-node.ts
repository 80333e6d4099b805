/**
 * @module
 * Entry point: `npm run start:node` (`node --import ./adapters/server/_ts-loader.mjs adapters/server/start-node.ts`) runs the standalone server on Node.
 */
import { FastResponse, serveNode } from "../node.ts";
import { connectPostgresJs } from "./postgres-connection.ts";
import { start } from "./start.ts";

// The app's responses become ones the Node adapter writes without reading a stream (see
// `_node/response.ts`); this entry point owns the process, so it may replace the global.
globalThis.Response = FastResponse as unknown as typeof Response;

await start(() => serveNode, { connectPostgres: connectPostgresJs });
