// The order the Koa recipe warns against: @koa/bodyparser for the whole app, then the pets API.
// The parser keeps the body on ctx.request.body, where the bridge cannot reach it.
import Koa from "koa";
import { bodyParser } from "@koa/bodyparser";
import { createApp, createMemoryStore } from "animal-store";
import { toNodeListener } from "animal-store/node";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const petsListener = toNodeListener(pets.fetch);
const app = new Koa();
app.use(bodyParser());
app.use((ctx) => {
  ctx.respond = false;
  petsListener(ctx.req, ctx.res);
});

const server = app.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
