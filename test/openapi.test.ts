import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import type { Json } from "../src/mod.ts";
import { DEFAULT_MAX_BODY_BYTES, ERROR_STATUS, MAX_EXACT_INTEGER, NAME_MAX_LENGTH, OPENAPI_DOCUMENT, PET_STATUSES } from "../src/mod.ts";
import { LIMIT } from "../src/operations/list-pets.ts";
import { ROUTES } from "../src/routes.ts";
import { createAccessLog } from "../adapters/server/access-log.ts";
import { READ_METHODS } from "../src/auth.ts";
import { AUTH, call, createPets, get, KEY, post, testApp } from "./helpers.ts";

/** A read-only key beside `KEY`, and one that has expired, for the 403 and the expired 401. */
const READ_KEY = "read-only-key";
const EXPIRED_KEY = "expired-key";
const keyedApp = () => testApp({ apiKeys: [KEY, { name: "reports", key: READ_KEY, scope: "read" }, { name: "old", key: EXPIRED_KEY, expires: "2020-01-01T00:00:00Z" }] });

/** Follows a path of keys into the document. */
function at(...keys: string[]): any {
  let value: Json | undefined = OPENAPI_DOCUMENT;
  for (const key of keys) value = (value as Record<string, Json> | undefined)?.[key];
  if (value === undefined) throw new Error(`The document has no ${keys.join(".")}`);
  return value;
}
const schema = (name: string) => at("components", "schemas", name);
const header = (name: string) => new RegExp(at("components", "headers", name, "schema", "pattern"));
const operations = () =>
  Object.entries(at("paths") as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).filter(([key]) => key !== "parameters").map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })));
const parameter = (path: string, method: string | undefined, name: string) =>
  [...(at("paths", path).parameters ?? []), ...(method === undefined ? [] : at("paths", path, method).parameters)].find((each: any) => each.name === name);
/** The regular expression of a parameter's schema, as JSON Schema applies it (ECMA-262 with `u`). */
const patternOf = (path: string, method: string | undefined, name: string) => new RegExp(parameter(path, method, name).schema.pattern, "u");
const requestRule = (id: string) => at("x-request-rules", "rules").find((rule: any) => rule.id === id);
/**
 * Whether the document says an integer parameter takes `text`: written as the integer-spelling rule
 * of x-request-rules says, with a value its schema allows.
 */
const takesInteger = (path: string, method: string | undefined, name: string) => {
  const { schema: integer } = parameter(path, method, name);
  const spelling = new RegExp(requestRule("integer-spelling").pattern, "u");
  return (text: string) => integer.type === "integer" && spelling.test(text) && Number(text) >= integer.minimum && Number(text) <= integer.maximum;
};
/** Every response object of every operation, component references followed. */
const responses = () =>
  operations().flatMap(({ path, method, operation }) =>
    Object.entries(operation.responses as Record<string, any>).map(([status, response]) => ({
      where: `${method} ${path} ${status}`,
      status,
      response: response.$ref === undefined ? response : at("components", "responses", response.$ref.split("/").pop()),
    })));

/** Spellings of integers the service might be sent: plain, signed, padded, fractional, huge. */
const integerSpelling = fc.oneof(
  fc.integer({ min: -5, max: 200 }).map(String),
  fc.constantFrom("", "00", "01", "+1", "-0", " 1", "1 ", "1.0", "1e0", "0x1", "100", "101", "9007199254740991", "9007199254740992", "09007199254740991"),
  fc.stringMatching(/^[-+ 0-9.e]{1,17}$/),
);

describe("GET /v1/openapi.json", () => {
  test("serves the document without a key, as JSON with caching headers", async () => {
    const response = await call(testApp(), "/v1/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    expect(await response.json()).toEqual(OPENAPI_DOCUMENT);
  });

  test("answers HEAD, and 405 with Allow for other methods", async () => {
    const app = testApp();
    expect((await call(app, "/v1/openapi.json", { method: "HEAD" })).status).toBe(200);
    const wrong = await call(app, "/v1/openapi.json", { method: "POST", headers: AUTH });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD");
  });

  test("only GET and HEAD are public: another method without a key answers 401", async () => {
    const response = await call(testApp(), "/v1/openapi.json", { method: "POST" });
    expect(response.status).toBe(401);
  });
});

describe("the OpenAPI document", () => {
  test("is OpenAPI 3.1 for interface version 1.0.0, with a contact, and production and staging servers ending in /v1", () => {
    expect(at("openapi")).toBe("3.1.0");
    expect(at("info", "version")).toBe("1.0.0");
    expect(at("info", "contact", "name")).toBeString();
    const servers = at("servers") as { url: string; "x-internal": boolean; variables: Record<string, { default: string }> }[];
    expect(servers.map((server) => server.url)).toEqual(["{base_url}", "{staging_base_url}"]);
    for (const server of servers) {
      expect(server["x-internal"]).toBe(false);
      for (const variable of Object.values(server.variables)) expect(variable.default).toEndWith("/v1");
    }
  });

  test("describes exactly the routes the service serves, with HEAD beside every GET, each with bearer security", () => {
    // Every method but those the core answers for any route: HEAD (as GET) and OPTIONS (a preflight).
    const documented = operations().filter(({ method }) => method !== "HEAD" && method !== "OPTIONS").map(({ path, method }) => `${method} ${path}`).sort();
    const served = ROUTES.filter((route) => !route.public).map((route) => `${route.method} ${route.path}`).sort();
    expect(documented).toEqual(served);
    const heads = operations().filter(({ method }) => method === "HEAD").map(({ path }) => `GET ${path}`).sort();
    expect(heads).toEqual(served.filter((route) => route.startsWith("GET ")));
    expect(at("security")).toEqual([{ bearerAuth: [] }]);
    expect(at("components", "securitySchemes", "bearerAuth")).toMatchObject({ type: "http", scheme: "bearer" });
    for (const { method, operation } of operations()) expect(operation.security).toEqual(method === "OPTIONS" ? [] : undefined);
  });

  test("HEAD /v1/pets and HEAD /v1/pets/1 answer as their GET does, the document's HEAD operations say so", async () => {
    const app = testApp();
    await createPets(app, [{ name: "a", categoryId: 1 }]);
    for (const path of ["/pets", "/pets/{petId}"]) {
      const head = at("paths", path, "head");
      expect(Object.keys(head.responses)).toEqual(Object.keys(at("paths", path, "get", "responses")));
      for (const response of Object.values(head.responses) as any[]) expect(response.content).toBeUndefined();
    }
    for (const path of ["/v1/pets", "/v1/pets/1", "/v1/pets/2"]) {
      const [got, head] = [await get(app, path), await call(app, path, { method: "HEAD", headers: AUTH })];
      expect(head.status).toBe(got.status);
      expect(await head.text()).toBe("");
    }
  });

  test("declares a CORS preflight on every path, answered without a key, and 405 for other use of OPTIONS", async () => {
    for (const path of Object.keys(at("paths"))) {
      const options = at("paths", path, "options");
      expect(Object.keys(options.responses)).toEqual(expect.arrayContaining(["204", "401", "405"]));
      expect(Object.keys(options.responses["204"].headers)).toEqual(
        expect.arrayContaining(["Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Max-Age"]),
      );
    }
    // CORS is off unless configured: OPTIONS is answered as any request.
    expect((await call(testApp(), "/v1/pets", { method: "OPTIONS", headers: AUTH })).status).toBe(405);
    expect((await call(testApp(), "/v1/pets", { method: "OPTIONS" })).status).toBe(401);
  });

  test("each preflight names the methods the service allows at its path", async () => {
    for (const path of Object.keys(at("paths"))) {
      const allowed = (await call(testApp(), `/v1${path.replace("{petId}", "1")}`, { method: "OPTIONS", headers: AUTH })).headers.get("allow");
      const named = /may send (.+) with the listed headers/.exec(at("paths", path, "options").responses["204"].description)?.[1];
      expect(named?.replace(" and ", ", ").split(", ").toSorted()).toEqual(allowed!.split(", ").toSorted());
    }
  });

  test("names the operations as the interface does, getPet deprecated", () => {
    const ids = Object.fromEntries(operations().map(({ path, method, operation }) => [`${method} ${path}`, operation]));
    expect(ids["GET /pets"].operationId).toBe("listPets");
    expect(ids["POST /pets"].operationId).toBe("createPet");
    expect(ids["GET /pets/{petId}"].operationId).toBe("getPet");
    expect(ids["GET /pets/{petId}"].deprecated).toBe(true);
    expect(ids["HEAD /pets/{petId}"].deprecated).toBe(true);
    expect(ids["GET /pets"].deprecated).toBeUndefined();
  });

  test("declares limit, after and petId as integers with the service's ranges, as the interface types them", () => {
    expect(parameter("/pets", "get", "limit").schema).toMatchObject({ type: "integer", format: "int32", minimum: LIMIT.min, maximum: LIMIT.max, default: LIMIT.default });
    expect(parameter("/pets", "get", "after").schema).toMatchObject({ type: "integer", format: "int64", minimum: 0, maximum: MAX_EXACT_INTEGER, default: 0 });
    expect(parameter("/pets/{petId}", undefined, "petId").schema).toMatchObject({ type: "integer", format: "int64", minimum: 1, maximum: MAX_EXACT_INTEGER });
  });

  test("x-request-rules names the plain decimal spelling of every integer in a path or query, with why a schema cannot say it", () => {
    const integers = operations()
      .flatMap(({ path, method }) => [...(at("paths", path).parameters ?? []), ...(at("paths", path, method.toLowerCase()).parameters ?? [])])
      .map((each: any) => (each.$ref === undefined ? each : at("components", "parameters", each.$ref.split("/").pop())))
      .filter((each: any) => (each.in === "path" || each.in === "query") && each.schema.type === "integer")
      .map((each: any) => `${each.in} ${each.name}`);
    const rule = requestRule("integer-spelling");
    expect(rule.parameters.map((each: any) => `${each.in} ${each.name}`).sort()).toEqual([...new Set(integers)].sort());
    expect(rule.operations).toEqual(expect.arrayContaining(["listPets", "listPetsHead", "getPet", "getPetHead"]));
    expect(rule.answers).toEqual(expect.arrayContaining([{ status: 400, code: "invalid_query" }, { status: 400, code: "invalid_path" }]));
    expect(rule.why).toContain("not how it was written");
    const spelling = new RegExp(rule.pattern, "u");
    for (const text of ["0", "1", "20", "100", "9007199254740991"]) expect({ text, plain: spelling.test(text) }).toEqual({ text, plain: true });
    for (const text of ["", "+1", "-0", "-1", "01", "00", " 1", "1 ", "1\t", "1.0", "1.", "1e0", "1E0", "0x1", "0b1", "1_000", "\uff15"]) {
      expect({ text, plain: spelling.test(text) }).toEqual({ text, plain: false });
    }
  });

  test("GET /pets?limit=<text> answers 200 exactly when the document takes the text: plain decimal, and a value its limit schema allows", async () => {
    const app = testApp();
    const documented = takesInteger("/pets", "get", "limit");
    await fc.assert(fc.asyncProperty(integerSpelling, async (text) => {
      const status = (await get(app, `/v1/pets?limit=${encodeURIComponent(text)}`)).status;
      expect({ text, documented: documented(text) }).toEqual({ text, documented: status === 200 });
    }), { numRuns: 300 });
  });

  test("its limit default is the validator's, and the service keeps it", async () => {
    const limit = parameter("/pets", "get", "limit").schema;
    expect(limit.default).toBe(LIMIT.default);
    const app = testApp();
    await createPets(app, Array.from({ length: LIMIT.default + 1 }, (_, i) => ({ name: `p${i}`, categoryId: i })));
    expect(await (await get(app, "/v1/pets")).json()).toHaveLength(limit.default);
  });

  test("GET /pets?after=<text> answers 200 exactly when the document takes the text: plain decimal, and a value its after schema allows", async () => {
    const app = testApp();
    const documented = takesInteger("/pets", "get", "after");
    await fc.assert(fc.asyncProperty(integerSpelling, async (text) => {
      const status = (await get(app, `/v1/pets?after=${encodeURIComponent(text)}`)).status;
      expect({ text, documented: documented(text) }).toEqual({ text, documented: status === 200 });
    }), { numRuns: 300 });
  });

  test("GET /pets/<text> is refused with 400 exactly when the document does not take the text as a petId", async () => {
    const app = testApp();
    const documented = takesInteger("/pets/{petId}", undefined, "petId");
    await fc.assert(fc.asyncProperty(integerSpelling.filter((text) => text !== "" && text !== "." && text !== ".."), async (text) => {
      const status = (await get(app, `/v1/pets/${encodeURIComponent(text)}`)).status;
      expect({ text, documented: documented(text) }).toEqual({ text, documented: status !== 400 });
    }), { numRuns: 300 });
  });

  test("its status values are the validator's, and each is accepted", async () => {
    expect(schema("PetStatus").enum).toEqual([...PET_STATUSES]);
    const app = testApp();
    for (const status of schema("PetStatus").enum) expect((await post(app, { name: "a", categoryId: 1, status })).status).toBe(201);
  });

  test("POST /pets accepts a name exactly when the document's name schema does: length, white space and lone surrogates", async () => {
    const name = schema("PetName");
    expect(name.maxLength).toBe(NAME_MAX_LENGTH);
    const pattern = new RegExp(name.pattern, "u");
    const documented = (text: string) => pattern.test(text) && [...text].length >= name.minLength && [...text].length <= name.maxLength;
    const app = testApp();
    const names = ["a", " a ", "", "   ", "\t\n", "\u00a0", "\u2003x", "x".repeat(200), "x".repeat(201), "🐕".repeat(200), "🐕".repeat(201), "\ud800", "a\udc00", "\udc00\ud800", "\ud83d\udc15", "\u0000"];
    for (const text of names) {
      const accepted = (await post(app, JSON.stringify({ name: text, categoryId: 1 }))).status === 201;
      expect({ text, documented: documented(text) }).toEqual({ text, documented: accepted });
    }
    await fc.assert(fc.asyncProperty(fc.string({ maxLength: 210, unit: fc.oneof(fc.constantFrom(" ", "\t", "\ud800", "\udc00"), fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code))) }), async (text) => {
      const accepted = (await post(app, JSON.stringify({ name: text, categoryId: 1 }))).status === 201;
      expect({ text, documented: documented(text) }).toEqual({ text, documented: accepted });
    }), { numRuns: 200 });
  });

  test("its categoryId range is the validator's, and the service keeps it", async () => {
    const categoryId = schema("CategoryId");
    expect([categoryId.minimum, categoryId.maximum, categoryId.format]).toEqual([-MAX_EXACT_INTEGER, MAX_EXACT_INTEGER, "int64"]);
    const app = testApp();
    expect((await post(app, { name: "a", categoryId: categoryId.maximum })).status).toBe(201);
    expect((await post(app, `{"name":"a","categoryId":${categoryId.minimum - 2}}`)).status).toBe(400);
  });

  test("its body size limit is the service's", async () => {
    expect(at("paths", "/pets", "post", "requestBody", "description")).toContain(`at most ${DEFAULT_MAX_BODY_BYTES} bytes`);
    const rule = at("x-request-rules", "rules").find((each: any) => each.id === "body-size");
    expect(rule.maxBytes).toBe(DEFAULT_MAX_BODY_BYTES);
    const app = testApp();
    const padding = (size: number) => `{"name":"${"x".repeat(size - 26)}","categoryId":1}`;
    expect(padding(DEFAULT_MAX_BODY_BYTES).length).toBe(DEFAULT_MAX_BODY_BYTES);
    expect((await post(app, padding(DEFAULT_MAX_BODY_BYTES + 1))).status).toBe(413);
    expect((await post(app, padding(DEFAULT_MAX_BODY_BYTES))).status).not.toBe(413);
  });

  test("POST /pets accepts a Content-Encoding exactly when the document's pattern matches it", async () => {
    const pattern = patternOf("/pets", "post", "Content-Encoding");
    const app = testApp();
    for (const encoding of ["identity", "IDENTITY", "Identity", "gzip", "br", "identity, gzip", "x"]) {
      const accepted = (await post(app, { name: "a", categoryId: 1 }, { "content-encoding": encoding })).status === 201;
      expect({ encoding, documented: pattern.test(encoding) }).toEqual({ encoding, documented: accepted });
    }
  });

  test("its error codes are the service's, and each code's status is declared where it is answered", () => {
    expect(schema("Error").properties.code.enum).toEqual(Object.keys(ERROR_STATUS));
    const declared = new Set([
      ...responses().map(({ status }) => Number(status)),
      ...at("x-request-rules", "rules").flatMap((rule: any) => rule.answers.map((answer: any) => answer.status)),
    ]);
    for (const [code, status] of Object.entries(ERROR_STATUS)) expect({ code, declared: declared.has(status) }).toEqual({ code, declared: true });
  });

  test("every error answer pins its status and codes, and gives each code an example with that status", () => {
    // HEAD answers carry no body (checked above).
    const errors = responses().filter(({ where, status }) => Number(status) >= 400 && !where.startsWith("HEAD "));
    expect(errors.length).toBeGreaterThan(30);
    for (const { where, status, response } of errors) {
      const media = response.content["application/json"];
      const [error, pinned] = media.schema.allOf;
      expect({ where, error }).toEqual({ where, error: { $ref: "#/components/schemas/Error" } });
      const codes: string[] = pinned.properties.code.oneOf?.map((choice: { const: string }) => choice.const) ?? [pinned.properties.code.const];
      expect({ where, status: pinned.properties.status.const }).toEqual({ where, status: Number(status) });
      for (const code of codes) {
        const answered: number = ERROR_STATUS[code as keyof typeof ERROR_STATUS];
        expect({ where, code, status: answered }).toEqual({ where, code, status: Number(status) });
      }
      // The codes the schema allows are the codes the description names, which the reference page lists.
      const named = Object.keys(ERROR_STATUS).filter((code) => new RegExp(`(?<![A-Za-z0-9_])${code}(?![A-Za-z0-9_])`).test(response.description));
      expect({ where, codes: [...codes].sort() }).toEqual({ where, codes: named.sort() });
      const examples = Object.values(media.examples as Record<string, { value: { code: string; status: number; message: string } }>).map((each) => each.value);
      expect({ where, examples: examples.map((each) => each.code).sort() }).toEqual({ where, examples: [...codes].sort() });
      for (const example of examples) {
        expect({ where, status: example.status, keys: Object.keys(example).sort() }).toEqual({ where, status: Number(status), keys: ["code", "message", "status"] });
        expect(example.message).toMatch(new RegExp(schema("Error").properties.message.pattern));
      }
    }
  });

  test("the Error schema allows only the statuses the service answers with", () => {
    expect([...schema("Error").properties.status.enum].sort()).toEqual([...new Set(Object.values(ERROR_STATUS))].sort());
  });

  test("the error examples are what the service answers", async () => {
    const app = testApp();
    await post(app, { name: "a", categoryId: 1 }, { "idempotency-key": "k1" });
    const example = (path: string, method: string, status: string, code: string) => {
      const response = at("paths", path, method, "responses", status);
      const resolved = response.$ref === undefined ? response : at("components", "responses", response.$ref.split("/").pop());
      return resolved.content["application/json"].examples[code].value;
    };
    const json = { ...AUTH, "content-type": "application/json" };
    const cases: [string, string, string, string, Response][] = [
      ["/pets", "get", "401", "unauthorized", await call(app, "/v1/pets")],
      ["/pets", "get", "400", "invalid_query", await get(app, "/v1/pets?limit=0")],
      ["/pets", "get", "400", "invalid_header", await get(app, "/v1/pets", { host: "a b" })],
      ["/pets", "post", "400", "invalid_body", await post(app, {})],
      ["/pets", "post", "400", "invalid_header", await post(app, {}, { "idempotency-key": "a b" })],
      ["/pets", "post", "413", "payload_too_large", await call(app, "/v1/pets", { method: "POST", headers: json, body: "x".repeat(70000) })],
      ["/pets", "post", "415", "unsupported_media_type", await call(app, "/v1/pets", { method: "POST", headers: { ...AUTH, "content-type": "text/plain" }, body: "x" })],
      ["/pets", "post", "422", "idempotency_key_reused", await post(app, { name: "b", categoryId: 1 }, { "idempotency-key": "k1" })],
      ["/pets/{petId}", "get", "400", "invalid_path", await get(app, "/v1/pets/abc")],
      ["/pets/{petId}", "get", "404", "not_found", await get(app, "/v1/pets/7")],
      ["/pets", "options", "405", "method_not_allowed", await call(app, "/v1/pets", { method: "OPTIONS", headers: AUTH })],
      ["/store/orders", "get", "501", "not_implemented", await get(app, "/v1/store/orders")],
      ["/pets", "post", "403", "insufficient_scope", await call(keyedApp(), "/v1/pets", { method: "POST", headers: { authorization: `Bearer ${READ_KEY}`, "content-type": "application/json" }, body: "{}" })],
    ];
    for (const [path, method, status, code, response] of cases) {
      expect({ path, method, status, body: await response.json() }).toEqual({ path, method, status, body: example(path, method, status, code) });
    }
  });

  test("every operation may answer 429, and every answer declares the rate-limit and CORS headers", () => {
    for (const { path, method, operation } of operations()) {
      expect({ operation: `${method} ${path}`, has429: "429" in operation.responses }).toEqual({ operation: `${method} ${path}`, has429: true });
    }
    for (const { where, response } of responses()) {
      const names = Object.keys(response.headers ?? {});
      expect({ where, names }).toEqual({
        where,
        names: expect.arrayContaining(["RateLimit", "RateLimit-Policy", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Vary", "X-Request-Id"]),
      });
    }
    expect(at("components", "responses", "TooManyRequests", "headers", "Retry-After")).toEqual({ $ref: "#/components/headers/Retry-After" });
  });

  test("its rate-limit and CORS header patterns match the values the IETF draft and the Fetch standard give", () => {
    expect('"default";q=100;w=1').toMatch(header("RateLimit-Policy"));
    expect('"default";q=100;w=1, "daily";q=1000;w=86400').toMatch(header("RateLimit-Policy"));
    expect('"default";r=42;t=1').toMatch(header("RateLimit"));
    expect("default;r=42;t=1;pk=:cHJvYmU=:").toMatch(header("RateLimit"));
    expect("RateLimit: 5").not.toMatch(header("RateLimit"));
    for (const origin of ["http://localhost:3000", "https://app.example.com", "*"]) expect(origin).toMatch(header("Access-Control-Allow-Origin"));
    expect("http://a.example/path").not.toMatch(header("Access-Control-Allow-Origin"));
    expect("Location, Link, ETag, X-Request-Id, Deprecation, Sunset, Idempotent-Replayed, RateLimit, RateLimit-Policy, Retry-After").toMatch(
      header("Access-Control-Expose-Headers"),
    );
    expect("Origin").toMatch(header("Vary"));
    expect("GET, HEAD, POST").toMatch(header("Access-Control-Allow-Methods"));
    expect("authorization,content-type,idempotency-key,if-none-match,x-request-id").toMatch(header("Access-Control-Allow-Headers"));
    expect("7200").toMatch(header("Access-Control-Max-Age"));
    expect("1").toMatch(header("Retry-After"));
  });

  test("GET and HEAD /v1/pets/ (an empty petId) answer 404 not_found without getPet's deprecation fields, as x-request-rules empty-petId says", async () => {
    const rule = requestRule("empty-petId");
    expect(rule.operations).toBeUndefined();
    expect(rule.paths).toEqual(["/pets/"]);
    expect(rule.answers).toEqual([{ status: 404, code: "not_found" }]);
    const app = testApp();
    await createPets(app, [{ name: "a", categoryId: 1 }]);
    for (const method of ["GET", "HEAD"]) {
      const response = await call(app, "/v1/pets/", { method, headers: AUTH });
      expect({ method, status: response.status }).toEqual({ method, status: 404 });
      for (const name of ["deprecation", "sunset", "link"]) expect({ method, name, value: response.headers.get(name) }).toEqual({ method, name, value: null });
      if (method === "GET") expect(await response.json()).toMatchObject({ code: "not_found", status: 404 });
    }
    // getPet itself carries them, even when it refuses.
    expect((await get(app, "/v1/pets/x")).headers.get("deprecation")).not.toBeNull();
  });

  test("every request rule beyond the schemas has a reason, and docs/conformance.md names it", () => {
    const section = readFileSync("docs/conformance.md", "utf8");
    for (const rule of at("x-request-rules", "rules")) {
      expect(rule.why.length).toBeGreaterThan(20);
      expect({ id: rule.id, named: section.includes(`\`${rule.id}\``) }).toEqual({ id: rule.id, named: true });
    }
  });

  test("every string it declares is bounded, and every integer has a format", () => {
    const unbounded: string[] = [];
    const visit = (value: Json, where: string): void => {
      if (Array.isArray(value)) value.forEach((each, i) => visit(each, `${where}/${i}`));
      else if (typeof value === "object" && value !== null) {
        const object = value as Record<string, Json>;
        if (object["type"] === "string" && !("maxLength" in object || "enum" in object || "const" in object)) unbounded.push(where);
        if (object["type"] === "integer" && !("format" in object)) unbounded.push(where);
        for (const [key, each] of Object.entries(object)) if (key !== "x-request-rules") visit(each, `${where}/${key}`);
      }
    };
    visit(OPENAPI_DOCUMENT, "#");
    expect(unbounded).toEqual([]);
  });

  test("its header patterns match the headers the service sends", async () => {
    const app = testApp();
    await createPets(app, [{ name: "a", categoryId: 1 }, { name: "b", categoryId: 2 }]);
    const created = await post(app, { name: "c", categoryId: 3 });
    expect(created.headers.get("location")).toMatch(header("Location"));
    expect((await get(app, "/v1/pets?limit=1")).headers.get("link")).toMatch(header("NextLink"));
    const fetched = await get(app, "/v1/pets/1");
    expect(fetched.headers.get("deprecation")).toMatch(header("Deprecation"));
    expect(fetched.headers.get("sunset")).toBe(at("components", "headers", "Sunset", "schema", "const"));
    expect(fetched.headers.get("link")).toMatch(header("SuccessorLink"));
    expect((await call(app, "/v1/pets")).headers.get("www-authenticate")).toMatch(header("WWW-Authenticate"));
    const wrongKey = await call(app, "/v1/pets", { headers: { authorization: "Bearer wrong" } });
    expect(wrongKey.headers.get("www-authenticate")).toMatch(header("WWW-Authenticate"));
    const wrongMethod = await call(app, "/v1/pets", { method: "PUT", headers: AUTH });
    expect(wrongMethod.headers.get("allow")).toMatch(new RegExp(at("components", "responses", "MethodNotAllowed", "headers", "Allow", "schema", "pattern")));
    const keyed = keyedApp();
    const expired = await call(keyed, "/v1/pets", { headers: { authorization: `Bearer ${EXPIRED_KEY}` } });
    expect(expired.headers.get("www-authenticate")).toMatch(header("WWW-Authenticate"));
    const readOnly = await call(keyed, "/v1/pets", { method: "POST", headers: { authorization: `Bearer ${READ_KEY}`, "content-type": "application/json" }, body: "{}" });
    expect(readOnly.headers.get("www-authenticate")).toMatch(header("WWW-Authenticate"));
  });

  test("an operation declares 403 exactly when a key of scope read may not use it, and such a key gets that 403 (issue 50)", async () => {
    const keyed = keyedApp();
    await createPets(keyed, [{ name: "a", categoryId: 1 }]);
    for (const { path, method, operation } of operations().filter(({ method }) => method !== "OPTIONS")) {
      const where = `${method} ${path}`;
      expect({ where, declares403: "403" in operation.responses }).toEqual({ where, declares403: !READ_METHODS.includes(method) });
      const headers: Record<string, string> = { authorization: `Bearer ${READ_KEY}`, "content-type": "application/json" };
      const answer = await call(keyed, `/v1${path.replace("{petId}", "1")}`, { method, headers, ...(method === "POST" ? { body: '{"name":"b","categoryId":1}' } : {}) });
      expect({ where, refused: answer.status === 403 }).toEqual({ where, refused: !READ_METHODS.includes(method) });
    }
  });
});

describe("the OpenAPI document on retries and caching", () => {
  test("its Idempotency-Key length and pattern are the service's", async () => {
    const idempotencyKey = parameter("/pets", "post", "Idempotency-Key");
    const pattern = new RegExp(idempotencyKey.schema.pattern);
    const app = testApp();
    for (const key of ["a", "8e03978e-40d5-43e8-bc93-6894a57f9324", '"quoted"', "k".repeat(255), "k".repeat(256), "a b", 'a"b', "a\\b", '"unbalanced', '""']) {
      const accepted = (await post(app, { name: "a", categoryId: 1 }, { "idempotency-key": key })).status === 201;
      expect({ key, documented: pattern.test(key) }).toEqual({ key, documented: accepted });
    }
  });

  test("its ETag and X-Request-Id patterns match the headers the service sends", async () => {
    const app = testApp();
    await createPets(app, [{ name: "a", categoryId: 1 }, { name: "b", categoryId: 2 }]);
    expect((await get(app, "/v1/pets/1")).headers.get("etag")).toMatch(header("ETag"));
    expect((await get(app, "/v1/pets?limit=1")).headers.get("etag")).toMatch(header("ETag"));
    const logged = createAccessLog({ format: "json", write: () => {} }).wrap(app);
    expect((await get(logged, "/v1/pets")).headers.get("x-request-id")).toMatch(header("RequestId"));
  });

  test("documents 304 wherever an ETag is sent, and 409 and 422 on createPet", () => {
    expect(Object.keys(at("paths", "/pets", "get", "responses"))).toContain("304");
    expect(Object.keys(at("paths", "/pets/{petId}", "get", "responses"))).toContain("304");
    expect(Object.keys(at("paths", "/pets", "post", "responses"))).toEqual(expect.arrayContaining(["409", "422"]));
  });
});
