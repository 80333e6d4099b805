import { H3, serve } from "h3";
import { createApp, createMemoryStore } from "animal-store";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const app = new H3();
// A cookie for the user the request names. h3 sends a Response a handler returns as it is, so
// headers set on event.res.headers never reach the service's answers: wrap them instead.
app.use(async (event, next) => {
  const answer = await next();
  const cookie = `session=${event.req.headers.get("x-user")}; HttpOnly`;
  if (!(answer instanceof Response)) {
    event.res.headers.append("set-cookie", cookie);
    return answer;
  }
  const headers = new Headers(answer.headers);
  headers.append("set-cookie", cookie);
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
});
app.get("/health", () => "ok");
app.all("/pets-api/v1/**", (event) => pets.fetch(event.req));

const server = await serve(app, { port: Number(process.env.PORT ?? 8080), hostname: "127.0.0.1", silent: true }).ready();
console.log(`listening on ${new URL(server.url).origin}`);
