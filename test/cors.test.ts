import { describe, expect, test } from "bun:test";
import type { Json, PetStore } from "../src/mod.ts";
import { createAccessLog } from "../adapters/server/access-log.ts";
import { readConfig } from "../adapters/server/config.ts";
import { createMemoryStore, OPENAPI_DOCUMENT } from "../src/mod.ts";
import { cors, CORS_ALLOWED_HEADERS, declaredRequestHeaders } from "../src/plugs/cors/mod.ts";
import { rateLimit } from "../src/plugs/rate-limit/mod.ts";
import { referencePage } from "../src/plugs/reference-page/mod.ts";
import { ROUTES } from "../src/routes.ts";
import { allowedAt, AUTH, call, createPets, errorOf, get, pathOf, post, testApp } from "./helpers.ts";

const PAGE = "http://localhost:3000";
const OTHER = "http://evil.test";
const EXPOSED = ["Location", "Link", "ETag", "X-Request-Id", "Deprecation", "Sunset", "Idempotent-Replayed", "Retry-After", "RateLimit", "RateLimit-Policy"];
const REQUESTED = ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match", "X-Request-Id"];

/** An app whose CORS lets `PAGE` in. */
const corsApp = (options: Parameters<typeof testApp>[0] = {}) => testApp({ plugs: [cors([PAGE])], ...options });

/** A preflight as a browser sends it: OPTIONS with Origin and Access-Control-Request-*, never a key. */
function preflight(app: ReturnType<typeof testApp>, path: string, origin = PAGE, method = "POST"): Promise<Response> {
  return call(app, path, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": "authorization,content-type" },
  });
}

/** The names of the answer's Access-Control-* headers. */
function corsHeaderNames(response: Response): string[] {
  return [...response.headers.keys()].filter((name) => name.startsWith("access-control-"));
}

function listOf(value: string | null): string[] {
  return (value ?? "").split(",").map((item) => item.trim().toLowerCase());
}

describe("CORS off (no cors plug, the default)", () => {
  test("answers carry no CORS headers and no Vary, whatever the Origin", async () => {
    const response = await get(testApp(), "/v1/pets", { origin: PAGE });
    expect(response.status).toBe(200);
    expect(corsHeaderNames(response)).toEqual([]);
    expect(response.headers.get("vary")).toBeNull();
  });

  test("a preflight answers 401 as any OPTIONS without a key does", async () => {
    const response = await preflight(testApp(), "/v1/pets");
    expect(response.status).toBe(401);
    expect(corsHeaderNames(response)).toEqual([]);
  });
});

describe("CORS preflight from a listed origin", () => {
  test("OPTIONS /v1/pets answers 204 without a key, allowing the path's methods and every header an operation reads", async () => {
    const response = await preflight(corsApp(), "/v1/pets");
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(response.headers.get("access-control-allow-methods")).toBe(allowedAt("/pets"));
    expect(listOf(response.headers.get("access-control-allow-headers"))).toEqual(expect.arrayContaining(REQUESTED.map((name) => name.toLowerCase())));
    expect(response.headers.get("access-control-max-age")).toBe("7200");
    expect(response.headers.get("vary")).toBe("Origin");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });

  test.each([...new Set(ROUTES.map((route) => route.path))].map((template) => [`/v1${pathOf(template)}`, allowedAt(template)]))("OPTIONS %s allows %s, the methods that path answers", async (path, methods) => {
    const response = await preflight(corsApp(), path, PAGE, "GET");
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-methods")).toBe(methods);
  });

  test("a preflight to a path the service does not have gets the usual 401, which no browser takes as allowed", async () => {
    const response = await preflight(corsApp(), "/v1/animals");
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-methods")).toBeNull();
  });

  test("OPTIONS with Origin but without Access-Control-Request-Method is no preflight: 401 without a key, 405 with one", async () => {
    const app = corsApp();
    expect((await call(app, "/v1/pets", { method: "OPTIONS", headers: { origin: PAGE } })).status).toBe(401);
    const keyed = await call(app, "/v1/pets", { method: "OPTIONS", headers: { origin: PAGE, ...AUTH } });
    expect(keyed.status).toBe(405);
    expect(keyed.headers.get("access-control-allow-origin")).toBe(PAGE);
  });
});

describe("CORS on a request that offers only what the core may read", () => {
  test("a preflight made of method, url and headers.get (as the Node adapter's lazy request) answers 204", async () => {
    const headers = new Headers({ origin: PAGE, "access-control-request-method": "POST" });
    const lookAlike = { method: "OPTIONS", url: "http://pets.test/v1/pets", headers: { get: (name: string) => headers.get(name) } };
    const response = await corsApp().fetch(lookAlike as unknown as Request);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(PAGE);
  });
});

describe("CORS for an origin that is not listed", () => {
  test("its preflight gets the usual 401 with no Access-Control-* header, so the browser blocks the request", async () => {
    const response = await preflight(corsApp(), "/v1/pets", OTHER);
    expect(response.status).toBe(401);
    expect(corsHeaderNames(response)).toEqual([]);
    expect(response.headers.get("vary")).toBe("Origin");
  });

  test("its requests are answered as usual, with no Access-Control-* header and Vary: Origin", async () => {
    const response = await get(corsApp(), "/v1/pets", { origin: OTHER });
    expect(response.status).toBe(200);
    expect(corsHeaderNames(response)).toEqual([]);
    expect(response.headers.get("vary")).toBe("Origin");
  });

  test("a request without Origin (curl, a same-origin page) gets Vary: Origin and no Access-Control-* header", async () => {
    const response = await get(corsApp(), "/v1/pets");
    expect(corsHeaderNames(response)).toEqual([]);
    expect(response.headers.get("vary")).toBe("Origin");
  });
});

describe("CORS on actual answers from a listed origin", () => {
  /** Checks an answer lets `PAGE` read it and the headers a client needs. */
  function expectReadable(response: Response) {
    expect(response.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(listOf(response.headers.get("access-control-expose-headers"))).toEqual(expect.arrayContaining(EXPOSED.map((name) => name.toLowerCase())));
    expect(response.headers.get("vary")).toBe("Origin");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  }

  test("list (200), create (201), get (200) and HEAD carry Access-Control-Allow-Origin: the origin, and expose the headers a client reads", async () => {
    const app = corsApp();
    const created = await post(app, { name: "Rex", categoryId: 1 }, { origin: PAGE });
    expect(created.status).toBe(201);
    expectReadable(created);
    for (const path of ["/v1/pets", "/v1/pets/1"]) {
      const response = await get(app, path, { origin: PAGE });
      expect(response.status).toBe(200);
      expectReadable(response);
      expectReadable(await call(app, path, { method: "HEAD", headers: { ...AUTH, origin: PAGE } }));
    }
  });

  test.each([
    ["401 without a key", () => call(corsApp(), "/v1/pets", { headers: { origin: PAGE } }), 401],
    ["404 for an unknown pet", () => get(corsApp(), "/v1/pets/99", { origin: PAGE }), 404],
    ["404 outside the base path", () => call(corsApp(), "/elsewhere", { headers: { origin: PAGE } }), 404],
    ["405 for another method", () => call(corsApp(), "/v1/pets", { method: "DELETE", headers: { ...AUTH, origin: PAGE } }), 405],
    ["400 for a bad body", () => post(corsApp(), "{", { origin: PAGE }), 400],
  ])("an error answer (%s) carries them too, so the page can read the error object", async (_name, send, status) => {
    const response = await send();
    expect(response.status).toBe(status);
    expectReadable(response);
    await errorOf(response);
  });

  test("a 500 carries them too", async () => {
    const store: PetStore = { ...createMemoryStore(), list: () => Promise.reject(new Error("boom")) };
    const response = await get(corsApp({ store, onError: () => {} }), "/v1/pets", { origin: PAGE });
    expect(response.status).toBe(500);
    expectReadable(response);
  });

  test("answers never share headers: the same pet's tagged 200 for two origins, then for none, each carries its own", async () => {
    const app = testApp({ plugs: [cors([PAGE, "https://second.test"])] });
    await createPets(app, [{ name: "Rex", categoryId: 1 }]);
    const first = await get(app, "/v1/pets/1", { origin: PAGE });
    const second = await get(app, "/v1/pets/1", { origin: "https://second.test" });
    const none = await get(app, "/v1/pets/1");
    expect([first, second, none].map((response) => response.headers.get("access-control-allow-origin"))).toEqual([PAGE, "https://second.test", null]);
    expect([first, second, none].map((response) => response.headers.get("vary"))).toEqual(["Origin", "Origin", "Origin"]);
  });
});

describe('CORS with cors("*")', () => {
  test("every answer says Access-Control-Allow-Origin: * (and no Vary), whatever the Origin or none", async () => {
    const app = testApp({ plugs: [cors("*")] });
    for (const headers of [{ origin: OTHER }, {}]) {
      const response = await get(app, "/v1/pets", headers);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(listOf(response.headers.get("access-control-expose-headers"))).toContain("location");
      expect(response.headers.get("vary")).toBeNull();
    }
  });

  test("a preflight from any origin answers 204 with Access-Control-Allow-Origin: *", async () => {
    const response = await preflight(testApp({ plugs: [cors("*")] }), "/v1/pets", OTHER);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe(allowedAt("/pets"));
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });
});

describe("the headers CORS allows and exposes follow the document", () => {
  test("a header parameter an operation declares is allowed, and Content-Type where a body is taken; Content-Encoding and the preflight's own never", () => {
    const document: Json = {
      paths: {
        "/things/{id}": {
          patch: { requestBody: {}, parameters: [{ name: "If-Match", in: "header" }, { $ref: "#/components/parameters/Trace" }, { name: "Content-Encoding", in: "header" }] },
          get: { parameters: [{ name: "id", in: "path" }, { name: "q", in: "query" }] },
          options: { parameters: [{ name: "Access-Control-Request-Method", in: "header" }] },
        },
      },
      components: { parameters: { Trace: { name: "X-Trace", in: "header" } } },
    };
    expect(declaredRequestHeaders(document)).toEqual(["Authorization", "Content-Type", "If-Match", "X-Trace"]);
    expect(CORS_ALLOWED_HEADERS).toEqual(declaredRequestHeaders(OPENAPI_DOCUMENT));
  });
});

describe("cors origins checks", () => {
  test.each(["https://app.example.com/", "https://APP.example.com", "http://app.example.com:80", "app.example.com", "ftp://app.example.com", "null"])(
    "createApp refuses the origin %p, naming it",
    (origin) => {
      expect(() => testApp({ plugs: [cors([origin])] })).toThrow(`Cannot create app: cors origins must hold`);
      expect(() => testApp({ plugs: [cors([origin])] })).toThrow(`got "${origin}"`);
    },
  );

  test("the reference page's path is preflighted as GET, HEAD when the page is on", async () => {
    const response = await preflight(testApp({ plugs: [cors([PAGE]), referencePage()] }), "/", PAGE, "GET");
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, HEAD");
  });
});

describe("CORS_ORIGINS and --cors-origins", () => {
  test("unset or empty: no CORS", () => {
    for (const env of [{}, { CORS_ORIGINS: "" }]) {
      const result = readConfig(env, []);
      expect(result.ok && result.value.corsOrigins).toBeUndefined();
    }
  });

  test("a comma-separated list of origins, spaces ignored; or * alone", () => {
    const listed = readConfig({ CORS_ORIGINS: "http://localhost:3000, https://app.example.com" }, []);
    expect(listed.ok && listed.value.corsOrigins).toEqual(["http://localhost:3000", "https://app.example.com"]);
    const any = readConfig({ CORS_ORIGINS: "*" }, []);
    expect(any.ok && any.value.corsOrigins).toBe("*");
  });

  test("the flag wins over the variable", () => {
    const result = readConfig({ CORS_ORIGINS: "http://a.test" }, ["--cors-origins=http://b.test"]);
    expect(result.ok && result.value.corsOrigins).toEqual(["http://b.test"]);
  });

  test("each bad origin is named; * in a list is refused", () => {
    expect(readConfig({ CORS_ORIGINS: "http://a.test/, https://ok.test, localhost:3000" }, [])).toEqual({
      ok: false,
      issues: [
        'CORS_ORIGINS must hold origins as a browser sends them in Origin ("http://a.test"), got "http://a.test/"',
        'CORS_ORIGINS must hold http or https origins such as https://app.example.com, got "localhost:3000"',
      ],
    });
    expect(readConfig({ CORS_ORIGINS: "*, http://a.test" }, [])).toEqual({
      ok: false,
      issues: ['CORS_ORIGINS must be "*" alone or a list of origins, got "*, http://a.test"'],
    });
  });

  test("the standalone server exits 2 naming a bad origin", async () => {
    const child = Bun.spawn(["node_modules/.bin/bun", "adapters/server/start-bun.ts"], {
      env: { ...process.env, PORT: "0", STORE: "memory", API_KEYS: "k", CORS_ORIGINS: "https://app.example.com/" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const code = await child.exited;
    clearTimeout(killer);
    expect(code).toBe(2);
    expect(await new Response(child.stderr).text()).toContain('CORS_ORIGINS must hold origins as a browser sends them in Origin ("https://app.example.com"), got "https://app.example.com/"');
  }, 20_000);
});

describe("the exposed headers follow the document", () => {
  test("every header the service sends on any answer is exposed to a page, or safelisted", async () => {
    const log = createAccessLog({ format: "text", write: () => {} });
    const inner = testApp({ plugs: [rateLimit({ requests: 1, seconds: 3600, burst: 12 }), cors([PAGE])] });
    const app = log.wrap(inner);
    const page = { origin: PAGE };
    const create = (headers: Record<string, string> = {}) => call(app, "/v1/pets", { method: "POST", headers: { ...AUTH, ...page, "content-type": "application/json", ...headers }, body: '{"name":"Rex","categoryId":1}' });
    const answers = [
      await create(),
      await create({ "idempotency-key": "k-1" }),
      await create({ "idempotency-key": "k-1" }),
      await call(app, "/v1/pets?limit=1", { headers: { ...AUTH, ...page } }),
      await call(app, "/v1/pets/1", { headers: { ...AUTH, ...page } }),
      await call(app, "/v1/pets/1", { headers: { ...AUTH, ...page, "if-none-match": (await call(app, "/v1/pets/1", { headers: AUTH })).headers.get("etag")! } }),
      await call(app, "/v1/pets", { headers: page }),
      await call(app, "/v1/pets", { method: "DELETE", headers: { ...AUTH, ...page } }),
      await create({ "content-type": "text/plain" }),
      await create({ "content-encoding": "gzip" }),
    ];
    for (let i = 0; i < 5; i++) answers.push(await call(app, "/v1/pets", { headers: { ...AUTH, ...page } }));
    expect(answers.map((response) => response.status)).toEqual([201, 201, 201, 200, 200, 304, 401, 405, 415, 415, 200, 200, 429, 429, 429]);
    expect(answers[2]!.headers.get("idempotent-replayed")).toBe("true");
    expect(answers[3]!.headers.get("link")).toContain('rel="next"');
    expect(answers[4]!.headers.get("deprecation")).not.toBeNull();
    const exposed = new Set(listOf(answers[0]!.headers.get("access-control-expose-headers")));
    const safelisted = new Set(["cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma"]);
    const unexposed = new Set(answers.flatMap((response) => [...response.headers.keys()])
      .filter((name) => !exposed.has(name) && !safelisted.has(name) && !name.startsWith("access-control-")));
    expect([...unexposed]).toEqual([]);
  });
});
