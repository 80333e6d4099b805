/**
 * @module
 * The Hono peer on Bun.
 */
import { createHonoApp } from "./hono-app.ts";

const app = await createHonoApp(Number(process.env.PETS ?? 1000));
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
console.log(`listening on http://127.0.0.1:${server.port}/v1`);
