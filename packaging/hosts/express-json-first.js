// The most common Express layout: a body parser for the whole app, then the pets API. Run on
// Express 5 and, with `express` resolving to Express 4, on Express 4; a RegExp route means the
// same on both. No onError: what the bridge reports goes to its default, which prints.
import express from "express";
import { createApp, createMemoryStore } from "animal-store";
import { toNodeListener } from "animal-store/node";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const app = express();
app.use(express.json());
app.all(/^\/pets-api\/v1\//, toNodeListener(pets.fetch));

const server = app.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
