import { createApp, createMemoryStore } from "animal-store";
import { FastResponse, serveNode } from "animal-store/node";

// FastResponse has what the service and serveNode ask of a Response, not all of it (no clone(),
// blob() or formData()), hence the cast: set it only where nothing else in the process makes one.
globalThis.Response = FastResponse as unknown as typeof Response;

const pets = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"] });
const server = await serveNode(pets, { port: Number(process.env.PORT ?? 8080), hostname: "127.0.0.1" });
console.log(`listening on http://127.0.0.1:${server.port}/v1`);
