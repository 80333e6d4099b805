import { createServer } from "node:http";
import { createApp, createMemoryStore } from "animal-store";
import { toNodeListener } from "animal-store/node";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" });
const petsListener = toNodeListener(pets.fetch);
const server = createServer((request, response) => {
  if (request.url.startsWith("/pets-api/v1/")) return petsListener(request, response);
  if (request.url === "/health") return response.end("ok");
  response.writeHead(404).end();
});
server.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
