import { Hono } from "hono";
import { createApp, createMemoryStore } from "animal-store";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const app = new Hono();
app.get("/health", (c) => c.text("ok"));
app.all("/pets-api/v1/*", (c) => pets.fetch(c.req.raw));

const server = Bun.serve({ port: Number(process.env.PORT ?? 8080), hostname: "127.0.0.1", fetch: app.fetch });
console.log(`listening on http://127.0.0.1:${server.port}`);
