import { createApp, createMemoryStore } from "animal-store";
import { serveBun } from "animal-store/bun";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"] });
const server = await serveBun(pets, { port: Number(process.env.PORT ?? 8080), hostname: "127.0.0.1" });
console.log(`listening on http://127.0.0.1:${server.port}/v1`);
