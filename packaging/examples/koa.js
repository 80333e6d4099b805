import Koa from "koa";
import { bodyParser } from "@koa/bodyparser";
import { createApp, createMemoryStore } from "animal-store";
import { toNodeListener } from "animal-store/node";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const petsListener = toNodeListener(pets.fetch);
const app = new Koa();
// Response time, around everything: the mount below resolves once the answer is sent, so this
// times the service's work too. A log, not a header: the answer has gone by then.
app.use(async (ctx, next) => {
  const started = performance.now();
  await next();
  console.log(`${ctx.method} ${ctx.url} ${ctx.status} ${(performance.now() - started).toFixed(1)} ms`);
});
// Headers of the app's own go on before next(): the service's answer keeps them. Here a cookie
// for the user the request names, standing in for a session.
app.use(async (ctx, next) => {
  ctx.cookies.set("session", ctx.get("x-user"));
  await next();
});
// The pets API before the body parser, which would read the body first.
app.use(async (ctx, next) => {
  if (!ctx.path.startsWith("/pets-api/v1/")) return next();
  ctx.respond = false; // the listener writes the answer
  await new Promise((sent) => {
    ctx.res.once("close", sent);
    petsListener(ctx.req, ctx.res);
  });
});
app.use(bodyParser());
app.use((ctx) => {
  if (ctx.path === "/health") ctx.body = "ok";
});

const server = app.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
