/**
 * @module
 * A local OTLP/HTTP receiver for benchmarks with tracing on: it takes every `POST /v1/traces` and
 * answers 200 without decoding it, so what is measured is the server's cost of recording and
 * exporting spans, not a collector's. Prints its URL and the spans' bytes received every 10 s.
 *
 *   bun bench/otlp-sink.ts [port]
 */
let bytes = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(Bun.argv[2] ?? 0),
  async fetch(request) {
    bytes += (await request.arrayBuffer()).byteLength;
    return new Response(new Uint8Array(0), { headers: { "content-type": request.headers.get("content-type") ?? "application/x-protobuf" } });
  },
});
console.log(`OTLP sink on http://127.0.0.1:${server.port}`);
setInterval(() => console.log(`${(bytes / 1e6).toFixed(1)} MB of spans received`), 10_000);
