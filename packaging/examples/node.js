import { createApp } from "animal-store";
import { openJsonFileStore } from "animal-store/json-file-store";
import { serveNode } from "animal-store/node";

const store = await openJsonFileStore(process.env.DATA_FILE ?? "data/pets.json");
const pets = createApp({ store, apiKeys: ["my-secret-key"] });
const server = await serveNode(pets, { port: Number(process.env.PORT ?? 8080), hostname: "127.0.0.1" });
console.log(`listening on http://127.0.0.1:${server.port}/v1`);
