import { Elysia } from "elysia";
import { createApp, createMemoryStore } from "animal-store";

// all() hands the whole path over, so basePath holds the prefix and no publicUrl is needed.
const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const app = new Elysia()
  .onRequest(({ request, set }) => {
    set.headers["set-cookie"] = `session=${request.headers.get("x-user")}; HttpOnly`;
  })
  .get("/health", () => "ok")
  .all("/pets-api/v1/*", ({ request }) => pets.fetch(request))
  .listen({ port: Number(process.env.PORT ?? 8080), hostname: "127.0.0.1" });
console.log(`listening on http://127.0.0.1:${app.server?.port}`);
