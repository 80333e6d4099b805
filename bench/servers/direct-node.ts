/**
 * @module
 * The project's core behind the least `node:http` code that can serve it: the baseline that the Node
 * adapter's own cost is measured against ("a raw node:http server doing the same work").
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp, createMemoryStore } from "../../src/mod.ts";
import { KEY } from "../fixtures.ts";

const app = createApp({ store: createMemoryStore(), apiKeys: [KEY] });
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", async () => {
    const body = Buffer.concat(chunks);
    const reply = await app.handle({
      method: request.method ?? "GET",
      url: `http://${request.headers.host}${request.url}`,
      headers: { get: (name) => (request.headers[name] as string | undefined) ?? null },
      body: null,
      arrayBuffer: () => Promise.resolve(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer),
    });
    response.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) }).end(reply.body);
  });
});
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`));
