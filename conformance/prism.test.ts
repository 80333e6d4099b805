/**
 * @module
 * Check 2: the project's own HTTP suite, sent through Stoplight Prism in proxy mode, which compares
 * every response with the OpenAPI document and lists what breaks it in an `sl-violations` header.
 * Any violation whose location starts with "response" fails the run. Run by `npm run test:conformance`.
 */
import { expect, test } from "bun:test";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Target } from "../test/http-suite.ts";
import { httpSuite, serverTarget } from "../test/http-suite.ts";
import type { Runtime } from "../test/server-process.ts";

const DOCUMENT = join(import.meta.dir, ".out", "openapi.json");
const PRISM = join(import.meta.dir, "node_modules", ".bin", "prism");
const RUNTIMES = (process.env.CONFORMANCE_RUNTIMES ?? "bun").split(",") as Runtime[];

/** A free port on loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The server for `runtime` and `store`, behind a Prism proxy that records response violations. */
function throughPrism(runtime: Runtime, store: "memory" | "file", violations: string[]): () => Promise<Target> {
  return async () => {
    const server = await serverTarget(runtime, store)();
    const port = await freePort();
    const prism = Bun.spawn(
      [PRISM, "proxy", DOCUMENT, server.url, "--host", "127.0.0.1", "--port", String(port), "--errors=false", "--validate-request=false"],
      { stdout: "pipe", stderr: "pipe" },
    );
    const url = `http://127.0.0.1:${port}`;
    const started = Date.now();
    for (;;) {
      const ready = await fetch(`${url}/openapi.json`).then(() => true, () => false);
      if (ready) break;
      if (Date.now() - started > 30_000) throw new Error("Prism did not start");
      await Bun.sleep(200);
    }
    return {
      url,
      directUrl: server.url,
      inspect(response) {
        const found = JSON.parse(response.headers.get("sl-violations") ?? "[]") as { location: string[]; message: string }[];
        for (const violation of found.filter((entry) => entry.location[0] === "response")) {
          violations.push(`${response.status} ${response.url}: ${violation.location.join(".")}: ${violation.message}`);
        }
      },
      async stop() {
        prism.kill("SIGKILL");
        await server.stop();
      },
    };
  };
}

for (const runtime of RUNTIMES) {
  for (const store of ["memory", "file"] as const) {
    const violations: string[] = [];
    httpSuite(`HTTP on ${runtime} with the ${store} store, through Prism`, throughPrism(runtime, store, violations));
    test(`no response on ${runtime} with the ${store} store breaks the OpenAPI document`, () => {
      expect(violations).toEqual([]);
    });
  }
}
