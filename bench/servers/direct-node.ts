/**
 * @module
 * The project's core behind the least `node:http` code that can serve it: the baseline that the Node
 * adapter's own cost is measured against ("a raw node:http server doing the same work"). Like the
 * standalone Node server, it lets the app make `FastResponse`s, and writes their text directly.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FastResponse } from "../../adapters/node.ts";
import { createApp, createMemoryStore } from "../../src/mod.ts";
import { KEY } from "../fixtures.ts";

globalThis.Response = FastResponse as unknown as typeof Response;

const app = createApp({ store: createMemoryStore(), apiKeys: [KEY] });
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", async () => {
    const body = Buffer.concat(chunks);
    const answer = await app.fetch({
      method: request.method ?? "GET",
      url: `http://${request.headers.host}${request.url}`,
      headers: { get: (name: string) => (request.headers[name] as string | undefined) ?? null },
      body: null,
      arrayBuffer: () => Promise.resolve(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer),
    } as unknown as Request);
    const parts = (answer as unknown as FastResponse).toNodeParts()!;
    response.writeHead(parts.status, { ...parts.headers, "content-length": Buffer.byteLength(parts.body) }).end(parts.body);
  });
});
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`));
