/**
 * @module
 * The Hono peer on Deno.
 */
import { createHonoApp } from "./hono-app.ts";

const app = await createHonoApp(Number(Deno.env.get("PETS") ?? 1000));
Deno.serve({
  port: 0,
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}/v1`),
}, app.fetch);
