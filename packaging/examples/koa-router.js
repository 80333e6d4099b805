import Koa from "koa";
import Router from "@koa/router";
import { createApp, createMemoryStore } from "animal-store";
import { toNodeListener } from "animal-store/node";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const petsListener = toNodeListener(pets.fetch);
const app = new Koa();
const router = new Router();
// A cookie for the user the request names, set before next() so the service's answer keeps it.
app.use(async (ctx, next) => {
  ctx.cookies.set("session", ctx.get("x-user"));
  await next();
});
router.get("/health", (ctx) => {
  ctx.body = "ok";
});
// Routed with all() and the whole path, so the service sees its base path; no body parser before it.
router.all("/pets-api/v1/{*rest}", async (ctx) => {
  ctx.respond = false; // the listener writes the answer
  await new Promise((sent) => {
    ctx.res.once("close", sent);
    petsListener(ctx.req, ctx.res);
  });
});
app.use(router.routes());

const server = app.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
