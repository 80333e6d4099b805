import { createApp, createMemoryStore } from "animal-store";

const app = createApp({ store: createMemoryStore(), apiKeys: ["my-secret-key"] });
const headers = { authorization: "Bearer my-secret-key", "content-type": "application/json" };
const created = await app.fetch(new Request("http://localhost/v1/pets", { method: "POST", headers, body: '{"name":"Rex","categoryId":1}' }));
const listed = await app.fetch(new Request("http://localhost/v1/pets", { headers }));
console.log(created.status, await listed.text()); // 201 [{"id":1,"name":"Rex","categoryId":1}]
