/**
 * @module
 * Entry point: `node --import tsx adapters/start-node.ts` runs the standalone server on Node.
 */
import { serveNode } from "./node.ts";
import { connectPostgresJs } from "./postgres-connection.ts";
import { start } from "./start.ts";

await start(serveNode, { connectPostgres: connectPostgresJs });
