import { createApp, createMemoryStore } from "animal-store";
import { serveDeno } from "animal-store/deno";

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"] });
const server = await serveDeno(pets, { port: Number(Deno.env.get("PORT") ?? 8080), hostname: "127.0.0.1" });
console.log(`listening on http://127.0.0.1:${server.port}/v1`);
