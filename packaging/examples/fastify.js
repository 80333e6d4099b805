import Fastify from "fastify";
import { createApp, createMemoryStore } from "animal-store";
import { toNodeListener } from "animal-store/node";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const petsListener = toNodeListener(pets.fetch);
const app = Fastify();
app.get("/health", async () => "ok");
// A plugin of its own, where no parser of Fastify's reads the body before the pets API does: the
// "*" parser reads nothing and lets every media type through, for the API to answer itself.
await app.register(async (api) => {
  api.removeAllContentTypeParsers();
  api.addContentTypeParser("*", (request, body, done) => done(null));
  api.all("/pets-api/v1/*", (request, reply) => {
    reply.hijack(); // the listener writes the answer
    petsListener(request.raw, reply.raw);
  });
});

const url = await app.listen({ port: Number(process.env.PORT ?? 8080), host: "127.0.0.1" });
console.log(`listening on ${url}`);
