/**
 * @module
 * The project's core behind the least `node:http` code that can serve it: the baseline that the Node
 * adapter's own cost is measured against ("a raw node:http server doing the same work"). Like the
 * standalone Node server, it lets the app make `FastResponse`s, and writes their text directly.
 */
import type { IncomingMessage } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FastResponse } from "../../adapters/node.ts";
import { createApp, createMemoryStore } from "../../src/mod.ts";
import { KEY } from "../fixtures.ts";

globalThis.Response = FastResponse as unknown as typeof Response;

/**
 * The request as the app reads it, its body already read. A class, as the adapter's is: an object of
 * closures per request cost this server about a tenth of its throughput on Node 20 (bench/RESULTS.md).
 */
class DirectRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  readonly body = null;
  readonly #bytes: Uint8Array;

  constructor(request: IncomingMessage, bytes: Uint8Array) {
    this.method = request.method ?? "GET";
    this.url = `http://${request.headers.host}${request.url}`;
    this.headers = new DirectHeaders(request);
    this.#bytes = bytes;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#bytes.buffer as ArrayBuffer);
  }
}

class DirectHeaders {
  readonly #request: IncomingMessage;

  constructor(request: IncomingMessage) {
    this.#request = request;
  }

  get(name: string): string | null {
    return (this.#request.headers[name] as string | undefined) ?? null;
  }
}

const app = createApp({ store: createMemoryStore(), apiKeys: [KEY] });
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", async () => {
    const body = new Uint8Array(Buffer.concat(chunks));
    const answer = await app.fetch(new DirectRequest(request, body) as unknown as Request);
    const parts = (answer as unknown as FastResponse).toNodeParts()!;
    response.writeHead(parts.status, { ...parts.headers, "content-length": Buffer.byteLength(parts.body) }).end(parts.body);
  });
});
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`));
