import { describe, expect, test } from "bun:test";
import type { Json } from "../src/mod.ts";
import { DEFAULT_MAX_BODY_BYTES, ERROR_STATUS, MAX_EXACT_INTEGER, NAME_MAX_LENGTH, OPENAPI_DOCUMENT, PET_STATUSES } from "../src/mod.ts";
import { LIMIT } from "../src/validate-list-query.ts";
import { ROUTES } from "../src/routes.ts";
import { createAccessLog } from "../adapters/server/access-log.ts";
import { AUTH, call, createPets, get, post, testApp } from "./helpers.ts";

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
    Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })));

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
  test("is OpenAPI 3.1 for interface version 1.0.0, with production and staging servers ending in /v1", () => {
    expect(at("openapi")).toBe("3.1.0");
    expect(at("info", "version")).toBe("1.0.0");
    const servers = at("servers") as { url: string; variables: Record<string, { default: string }> }[];
    expect(servers.map((server) => server.url)).toEqual(["{base_url}", "{staging_base_url}"]);
    for (const server of servers) for (const variable of Object.values(server.variables)) expect(variable.default).toEndWith("/v1");
  });

  test("describes exactly the routes the service serves, each with bearer security", () => {
    const documented = operations().map(({ path, method }) => `${method} ${path}`).sort();
    const served = ROUTES.filter((route) => !route.public).map((route) => `${route.method} ${route.path}`).sort();
    expect(documented).toEqual(served);
    expect(at("security")).toEqual([{ bearerAuth: [] }]);
    expect(at("components", "securitySchemes", "bearerAuth")).toMatchObject({ type: "http", scheme: "bearer" });
    for (const { operation } of operations()) expect(operation.security).toBeUndefined();
  });

  test("names the operations as the interface does, getPet deprecated", () => {
    const ids = Object.fromEntries(operations().map(({ path, method, operation }) => [`${method} ${path}`, operation]));
    expect(ids["GET /pets"].operationId).toBe("listPets");
    expect(ids["POST /pets"].operationId).toBe("createPet");
    expect(ids["GET /pets/{petId}"].operationId).toBe("getPet");
    expect(ids["GET /pets/{petId}"].deprecated).toBe(true);
    expect(ids["GET /pets"].deprecated).toBeUndefined();
  });

  test("its limit bounds and default are the validator's, and the service keeps them", async () => {
    const limit = at("paths", "/pets", "get", "parameters", "0", "schema");
    expect([limit.minimum, limit.maximum, limit.default]).toEqual([LIMIT.min, LIMIT.max, LIMIT.default]);
    const app = testApp();
    await createPets(app, Array.from({ length: limit.maximum + 1 }, (_, i) => ({ name: `p${i}`, categoryId: i })));
    expect(await (await get(app, "/v1/pets")).json()).toHaveLength(limit.default);
    expect(await (await get(app, `/v1/pets?limit=${limit.maximum}`)).json()).toHaveLength(limit.maximum);
    expect((await get(app, `/v1/pets?limit=${limit.maximum + 1}`)).status).toBe(400);
    expect((await get(app, `/v1/pets?limit=${limit.minimum - 1}`)).status).toBe(400);
  });

  test("its status values are the validator's, and each is accepted", async () => {
    expect(schema("PetStatus").enum).toEqual([...PET_STATUSES]);
    const app = testApp();
    for (const status of schema("PetStatus").enum) expect((await post(app, { name: "a", categoryId: 1, status })).status).toBe(201);
  });

  test("its name length and categoryId range are the validator's, and the service keeps them", async () => {
    const name = schema("PetName");
    const categoryId = schema("CategoryId");
    expect(name.maxLength).toBe(NAME_MAX_LENGTH);
    expect([categoryId.minimum, categoryId.maximum]).toEqual([-MAX_EXACT_INTEGER, MAX_EXACT_INTEGER]);
    const app = testApp();
    expect((await post(app, { name: "x".repeat(name.maxLength), categoryId: categoryId.maximum })).status).toBe(201);
    expect((await post(app, { name: "x".repeat(name.maxLength + 1), categoryId: 1 })).status).toBe(400);
    expect((await post(app, `{"name":"a","categoryId":${categoryId.minimum - 2}}`)).status).toBe(400);
  });

  test("its body size limit is the service's", async () => {
    expect(at("paths", "/pets", "post", "requestBody", "description")).toContain(`at most ${DEFAULT_MAX_BODY_BYTES} bytes`);
    const app = testApp();
    const padding = (size: number) => `{"name":"${"x".repeat(size - 26)}","categoryId":1}`;
    expect(padding(DEFAULT_MAX_BODY_BYTES).length).toBe(DEFAULT_MAX_BODY_BYTES);
    expect((await post(app, padding(DEFAULT_MAX_BODY_BYTES + 1))).status).toBe(413);
    expect((await post(app, padding(DEFAULT_MAX_BODY_BYTES))).status).not.toBe(413);
  });

  test("its error codes are the service's", () => {
    expect(schema("Error").properties.code.enum).toEqual(Object.keys(ERROR_STATUS));
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
  });
});

describe("the OpenAPI document on retries and caching", () => {
  test("its Idempotency-Key length and pattern are the service's", async () => {
    const parameter = at("paths", "/pets", "post", "parameters", "0");
    expect(parameter.name).toBe("Idempotency-Key");
    const pattern = new RegExp(parameter.schema.pattern);
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
