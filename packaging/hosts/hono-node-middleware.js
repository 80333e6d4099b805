// Hono on Node through @hono/node-server (which replaces the global Response with its own), the
// pets API mounted with app.all, and middleware that adds headers to each answer after the
// handler ran, as session and timing middleware do. No answer may carry another's headers.
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { timing } from "hono/timing";
import { createApp, createMemoryStore } from "animal-store";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const app = new Hono();
app.use("*", timing());
app.use("*", async (c, next) => {
  await next();
  c.res.headers.append("set-cookie", `session=${c.req.header("x-user")}; HttpOnly`);
});
app.all("/pets-api/*", (c) => pets.fetch(c.req.raw));

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 8080), hostname: "127.0.0.1" }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`);
});
