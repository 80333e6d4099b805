/**
 * @module
 * Check 5: a mock made from the document answers what the service would. Stoplight Prism serves the
 * document as a mock, once with its examples (static) and once with values it makes up from the
 * schemas (dynamic); every error answer of every operation is asked for (`Prefer: code=<status>`)
 * and its body must carry that status and a code the service answers with it (`ERROR_STATUS`).
 * Without a key at all, the mock's own 401 must be `unauthorized` too.
 */
import { createServer } from "node:net";
import { join } from "node:path";
import { ERROR_STATUS } from "../src/errors.ts";

const PRISM = join(import.meta.dir, "node_modules", ".bin", "prism");

/** What the mock answered to one request, and what it should have. */
export interface MockAnswer {
  readonly request: string;
  readonly status: number;
  readonly body: string;
  readonly ok: boolean;
}

/** A free port on loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

type Document = { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };

/** The requests that ask for each error answer the document declares, with a body Prism accepts. */
function errorRequests(document: Document): { method: string; path: string; status: number; headers: Record<string, string>; body?: string }[] {
  return Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item)
      // HEAD answers have no body to check.
      .filter(([method]) => method === "get" || method === "post" || method === "options")
      .flatMap(([method, operation]) =>
        Object.keys(operation.responses ?? {}).filter((status) => Number(status) >= 400).map((status) => ({
          method: method.toUpperCase(),
          path: template.replace("{petId}", "7"),
          status: Number(status),
          headers: {
            authorization: "Bearer mock-key",
            prefer: `code=${status}`,
            ...(method === "post" ? { "content-type": "application/json" } : {}),
            ...(method === "options" ? { origin: "https://app.example", "access-control-request-method": "GET" } : {}),
          },
          ...(method === "post" ? { body: '{"name":"Rex","categoryId":1}' } : {}),
        }))));
}

/** Whether a body is the error object for `status`: that status, and a code the service answers with it. */
function isErrorFor(status: number, body: string): boolean {
  try {
    const error = JSON.parse(body) as { code?: unknown; status?: unknown };
    const code = typeof error.code === "string" && error.code in ERROR_STATUS ? (error.code as keyof typeof ERROR_STATUS) : undefined;
    return error.status === status && code !== undefined && ERROR_STATUS[code] === status;
  } catch {
    return false;
  }
}

/** Runs Prism as a mock of the document at `path` and asks it for every error answer; `dynamic` makes it invent values. */
export async function askMock(path: string, document: Document, dynamic: boolean): Promise<MockAnswer[]> {
  const port = await freePort();
  const prism = Bun.spawn(
    [PRISM, "mock", path, "--host", "127.0.0.1", "--port", String(port), "--errors=false", "--cors=false", ...(dynamic ? ["--dynamic"] : [])],
    { stdout: "ignore", stderr: "ignore" },
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    const started = Date.now();
    while (!(await fetch(`${base}/pets`).then(() => true, () => false))) {
      if (Date.now() - started > 30_000) throw new Error("Prism's mock did not start within 30 s");
      await Bun.sleep(200);
    }
    const answers: MockAnswer[] = [];
    const ask = async (request: string, status: number, url: string, init: RequestInit) => {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
      const body = await response.text();
      answers.push({ request, status: response.status, body, ok: response.status === status && isErrorFor(status, body) });
    };
    await ask("GET /pets without a key", 401, `${base}/pets`, {});
    for (const each of errorRequests(document)) {
      const init: RequestInit = { method: each.method, headers: each.headers, ...(each.body === undefined ? {} : { body: each.body }) };
      await ask(`${each.method} ${each.path} (Prefer: code=${each.status})`, each.status, `${base}${each.path}`, init);
    }
    return answers;
  } finally {
    prism.kill("SIGKILL");
    await prism.exited;
  }
}
