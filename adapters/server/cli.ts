#!/usr/bin/env node
/**
 * @module
 * The `animal-store` command of the published package (`npx animal-store`, `bunx animal-store`):
 * the standalone server on the runtime that runs it, Bun's own server and client under Bun and the
 * Node adapter elsewhere. Its flags are the server's (`animal-store --help`).
 */
import process from "node:process";

await (process.versions["bun"] === undefined ? import("./start-node.ts") : import("./start-bun.ts"));
