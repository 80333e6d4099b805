import { describe, expect, test } from "bun:test";
import { AUTH, createPets, errorOf, post, testApp } from "./helpers.ts";

/** A request to the app as a runtime would hand it over: the URL built from Host, Host kept as a header. */
function fromHost(app: ReturnType<typeof testApp>, host: string, path: string, init: RequestInit = {}): Promise<Response> {
  return app.fetch(new Request(`http://${host}${path}`, { ...init, headers: { ...AUTH, host, ...init.headers } }));
}

describe("Host and the public origin", () => {
  test.each(["x/v1/openapi.json?", 'evil.example>; rel="next", <x', "user@evil.example", "a b", "evil.example:99999", "[::1]:65536"])(
    "a Host of %p answers 400 invalid_header and stores nothing",
    async (host) => {
      const app = testApp();
      const response = await app.fetch(new Request("http://placeholder/v1/pets", {
        method: "POST",
        headers: { ...AUTH, host, "content-type": "application/json" },
        body: '{"name":"Rex","categoryId":1}',
      }));
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe("invalid_header");
      expect(await app.store.list({ limit: 10, after: 0 })).toEqual([]);
    },
  );

  test.each(["pets.example:65535", "pets.example:0", "[::1]:8080"])("a Host of %p with a port from 0 to 65535 is served", async (host) => {
    const response = await fromHost(testApp(), host, "/v1/pets");
    expect(response.status).toBe(200);
  });

  test("without a public URL, Location follows a well-formed Host", async () => {
    const response = await fromHost(testApp(), "pets.example:8080", "/v1/pets", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(response.headers.get("location")).toBe("http://pets.example:8080/v1/pets/1");
  });

  test("a request URL that is only a path (Bun without Host) gets relative links", async () => {
    const app = testApp();
    const response = await post(app, { name: "Rex", categoryId: 1 });
    expect(response.status).toBe(201);
    const relative = await app.fetch({ method: "GET", url: "/v1/pets/1", headers: new Headers(AUTH) } as unknown as Request);
    expect(relative.headers.get("link")).toBe('</v1/pets>; rel="successor-version"');
  });

  test("publicUrl is used for Location and Link whatever Host says", async () => {
    const app = testApp({ publicUrl: "https://api.example.com/pets-api" });
    await createPets(app, [{ name: "a", categoryId: 1 }, { name: "b", categoryId: 1 }]);
    const created = await fromHost(app, "evil.example", "/v1/pets", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"c","categoryId":1}',
    });
    expect(created.headers.get("location")).toBe("https://api.example.com/pets-api/v1/pets/3");
    const page = await fromHost(app, "evil.example", "/v1/pets?limit=1");
    expect(page.headers.get("link")).toBe('<https://api.example.com/pets-api/v1/pets?limit=1&after=1>; rel="next"');
  });

  test.each(["ftp://x", "https://x/", "https://x?a=1", "https://user@x", "not a url", "HTTPS://X"])(
    "publicUrl %p is refused when the app is built",
    (publicUrl) => {
      expect(() => testApp({ publicUrl })).toThrow("publicUrl");
    },
  );

  test("forwarded headers are ignored unless trustProxy is set", async () => {
    const headers = { forwarded: "proto=https;host=evil.example", "x-forwarded-host": "evil.example" };
    const response = await fromHost(testApp(), "pets.test", "/v1/pets/1", { headers });
    expect(response.headers.get("link")).toBe('<http://pets.test/v1/pets>; rel="successor-version"');
  });

  test("with trustProxy forwarded, Forwarded gives the scheme and host", async () => {
    const app = testApp({ trustProxy: "forwarded" });
    const response = await fromHost(app, "10.0.0.2:8080", "/v1/pets/1", { headers: { forwarded: 'for=1.2.3.4;proto=https;host="pets.example"' } });
    expect(response.headers.get("link")).toBe('<https://pets.example/v1/pets>; rel="successor-version"');
  });

  test.each(['proto=http;host=evil.example;proto=https', 'for=1.2.3.4;host=pets.example;host=evil.example', 'for=1.2.3.4;HOST=evil.example;host=pets.example', 'for=1.2.3.4;host="evil.example', 'for=1.2.3.4;host=evil"example', 'for=1.2.3.4;host=pets example', 'for=1.2.3.4;host=', 'for=1.2.3.4;=x;host=evil.example'])(
    "with trustProxy forwarded, a malformed first element (%p) gives no origin: the request's own is written",
    async (forwarded) => {
      const app = testApp({ trustProxy: "forwarded" });
      const response = await fromHost(app, "10.0.0.2:8080", "/v1/pets/1", { headers: { forwarded } });
      expect(response.headers.get("link")).toBe('<http://10.0.0.2:8080/v1/pets>; rel="successor-version"');
    },
  );

  test("with trustProxy forwarded, a quoted value is read whole and unescaped, and a later element is never read", async () => {
    const app = testApp({ trustProxy: "forwarded" });
    const forwarded = 'for="[2001:db8::1]:4711";host="pets\\.example";proto=https, for=10.0.0.1;host=evil.example';
    const response = await fromHost(app, "10.0.0.2:8080", "/v1/pets/1", { headers: { forwarded } });
    expect(response.headers.get("link")).toBe('<https://pets.example/v1/pets>; rel="successor-version"');
  });

  test("with trustProxy x-forwarded, X-Forwarded-Proto and X-Forwarded-Host give the scheme and host", async () => {
    const app = testApp({ trustProxy: "x-forwarded" });
    const headers = { "x-forwarded-proto": "https", "x-forwarded-host": "pets.example, inner.proxy" };
    const response = await fromHost(app, "10.0.0.2:8080", "/v1/pets/1", { headers });
    expect(response.headers.get("link")).toBe('<https://pets.example/v1/pets>; rel="successor-version"');
  });

  test("with trustProxy x-forwarded, a client's own Forwarded is never read", async () => {
    const app = testApp({ trustProxy: "x-forwarded" });
    const headers = { forwarded: 'proto=https;host="evil.example"' };
    const response = await fromHost(app, "pets.test", "/v1/pets/1", { headers });
    expect(response.headers.get("link")).toBe('<http://pets.test/v1/pets>; rel="successor-version"');
  });

  test("with trustProxy forwarded, a client's own X-Forwarded-Proto and X-Forwarded-Host are never read", async () => {
    const app = testApp({ trustProxy: "forwarded" });
    const headers = { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" };
    const response = await fromHost(app, "pets.test", "/v1/pets/1", { headers });
    expect(response.headers.get("link")).toBe('<http://pets.test/v1/pets>; rel="successor-version"');
  });

  test.each([true, "yes", "X-Forwarded-For"])("trustProxy %p is refused when the app is built, naming the two header families", (trustProxy) => {
    expect(() => testApp({ trustProxy: trustProxy as never })).toThrow('Cannot create app: trustProxy must name the one header family the proxy sets, "x-forwarded" or "forwarded", or be false, got ');
  });

  test("with trustProxy x-forwarded, a malformed forwarded host is not written: the request's own origin is", async () => {
    const app = testApp({ trustProxy: "x-forwarded" });
    const headers = { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example>; rel=next" };
    const response = await fromHost(app, "pets.test", "/v1/pets/1", { headers });
    expect(response.headers.get("link")).toBe('<http://pets.test/v1/pets>; rel="successor-version"');
  });
});

describe("paths in one normal form", () => {
  test.each([["/v1/x/../pets/1", 200], ["/v1/pets/./1", 200], ["/v1/pets/%2e%2E/pets/1", 200], ["/v1/pets/..", 404]])(
    "%s is resolved as a URL parser resolves it (answers %d)",
    async (path, status) => {
      const app = testApp();
      await createPets(app, [{ name: "Rex", categoryId: 1 }]);
      const response = await fromHost(app, "pets.test", path);
      expect(response.status).toBe(status);
    },
  );

  test("characters a URL must encode are echoed percent-encoded, as Bun hands them over", async () => {
    const response = await fromHost(testApp(), "pets.test", "/v1/pets/{petId}", { method: "PUT" });
    // The methods are routing's business (routing.test.ts); here, only how the path is echoed.
    expect((await errorOf(response)).message).toStartWith("Cannot PUT /v1/pets/%7BpetId%7D: allowed methods are ");
  });
});

describe("mounted under a prefix", () => {
  test("a host that strips /pets-api, with publicUrl holding it, gets Location and Link under /pets-api", async () => {
    const app = testApp({ publicUrl: "https://example.com/pets-api" });
    await createPets(app, [{ name: "a", categoryId: 1 }, { name: "b", categoryId: 1 }]);
    // What Hono's app.mount and Express's app.use("/pets-api", …) hand over: the path without the prefix.
    const strip = (request: Request) => app.fetch(new Request(request.url.replace("/pets-api/", "/"), request));
    const page = await strip(new Request("https://example.com/pets-api/v1/pets?limit=1", { headers: AUTH }));
    expect(page.headers.get("link")).toBe('<https://example.com/pets-api/v1/pets?limit=1&after=1>; rel="next"');
  });

  test("a host that passes the whole path on, with basePath holding the prefix, needs no publicUrl", async () => {
    const app = testApp({ basePath: "/pets-api/v1" });
    const mounted = await app.fetch(new Request("https://example.com/pets-api/v1/pets", {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/json" },
      body: '{"name":"b","categoryId":1}',
    }));
    expect(mounted.headers.get("location")).toBe("https://example.com/pets-api/v1/pets/1");
  });
});
