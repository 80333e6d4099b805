import { createApp, createKeyRing, createMemoryStore } from "animal-store";

// A key per client, each with a name; the dashboard's may only read, and is kept as its SHA-256 alone.
const dashboard = { name: "dashboard", key: "sha256:63686fabb4cdc83c4cc1be53e418febdf8424f64c34a04e86fedc63cfb762acc", scope: "read" } as const;
const keys = createKeyRing([{ name: "shop", key: "shop-secret-key" }, dashboard]);
const app = createApp({ store: createMemoryStore(), apiKeys: keys });
const create = async (key: string) =>
  (await app.fetch(new Request("http://localhost/v1/pets", { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' }))).status;
const before = [await create("shop-secret-key"), await create("dashboard-key")];
// The shop's key replaced while the app serves: the new one works from the next request, the old one no more.
keys.replace([{ name: "shop-2", key: "new-shop-key" }, dashboard]);
const after = [await create("new-shop-key"), await create("shop-secret-key")];
console.log(...before, ...after); // 201 403 201 401
