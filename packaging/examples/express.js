import express from "express";
import { createApp, createMemoryStore } from "animal-store";
import { toNodeListener } from "animal-store/node";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const app = express();
app.get("/health", (req, res) => res.send("ok"));
// Mounted with app.all, not app.use, which would cut the base path off req.url; and before any
// body parser, since the pets API reads the request body itself.
app.all("/pets-api/v1/{*rest}", toNodeListener(pets.fetch));

const server = app.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
