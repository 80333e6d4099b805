import { createApp, createMemoryStore } from "animal-store";

const pets = createApp({
  store: createMemoryStore(),
  apiKeys: ["my-secret-key"],
  basePath: "/pets-api/v1",
  // A route handler's request.url is always http://localhost:PORT, whatever Host the client sent:
  // publicUrl says where the links point. Not trustProxy: Next passes a client's own
  // X-Forwarded-Host through, and every link would point where that client says.
  publicUrl: process.env.PUBLIC_URL ?? "http://localhost:3000",
});

// Every method, so the service answers each one: Next answers a method a route does not export
// itself (an OPTIONS without CORS headers, an empty 405 for DELETE).
const handler = (request) => pets.fetch(request);
export { handler as GET, handler as HEAD, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
