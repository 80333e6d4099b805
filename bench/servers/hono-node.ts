/**
 * @module
 * The Hono peer on Node, through @hono/node-server.
 */
import { serve } from "@hono/node-server";
import { createHonoApp } from "./hono-app.ts";

const app = await createHonoApp(Number(process.env.PETS ?? 1000));
serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, ({ port }) => {
  console.log(`listening on http://127.0.0.1:${port}/v1`);
});
