import { Elysia } from "elysia";
import { createApp, createMemoryStore } from "animal-store";

// mount() cuts "/pets-api" off the path, so publicUrl puts it back into the links (the API is
// under /v1 of it, the default base path).
const pets = createApp({
  store: createMemoryStore(),
  apiKeys: ["my-secret-key"],
  publicUrl: process.env.PUBLIC_URL ?? "http://localhost:8080/pets-api",
});
const app = new Elysia()
  // A cookie for the user the request names, standing in for a session.
  .onRequest(({ request, set }) => {
    set.headers["set-cookie"] = `session=${request.headers.get("x-user")}; HttpOnly`;
  })
  .get("/health", () => "ok")
  .mount("/pets-api", pets.fetch)
  .listen({ port: Number(process.env.PORT ?? 8080), hostname: "127.0.0.1" });
console.log(`listening on http://127.0.0.1:${app.server?.port}`);
