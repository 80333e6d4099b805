import { describe, expect, test } from "bun:test";
import type { Pet } from "../src/mod.ts";
import { ROUTES } from "../src/routes.ts";
import { AUTH, call, createPets, errorOf, get, refusedAt, testApp } from "./helpers.ts";

function expectDeprecated(response: Response): void {
  expect(response.headers.get("deprecation")).toBe("@1795305600");
  expect(response.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT");
  expect(response.headers.get("link")).toBe('<http://pets.test/v1/pets>; rel="successor-version"');
}

describe("GET /pets/{petId}", () => {
  test("answers 200 with the pet", async () => {
    const app = testApp();
    const [pet] = await createPets(app, [{ name: "Rex", categoryId: 2, status: "sold" }]);
    const response = await get(app, `/v1/pets/${pet!.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect((await response.json()) as Pet).toEqual(pet!);
  });

  test("a header set on one answer does not reach the next answer for the same pet", async () => {
    const app = testApp();
    const [pet] = await createPets(app, [{ name: "Rex", categoryId: 2 }]);
    const first = await get(app, `/v1/pets/${pet!.id}`);
    const tag = first.headers.get("etag");
    first.headers.set("x-request-id", "first");
    first.headers.set("etag", '"changed"');
    const second = await get(app, `/v1/pets/${pet!.id}`);
    expect(second.headers.get("x-request-id")).toBeNull();
    expect(second.headers.get("etag")).toBe(tag);
  });

  test("an id that does not exist answers 404 not_found", async () => {
    const response = await get(testApp(), "/v1/pets/42");
    expect(response.status).toBe(404);
    const error = await errorOf(response);
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("42");
  });

  test.each(["abc", "0", "-1", "1.5", "007", "9007199254740992", "99999999999999999999", "%31"])(
    "petId %p answers 400 invalid_path",
    async (petId) => {
      const response = await get(testApp(), `/v1/pets/${petId}`);
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe("invalid_path");
      expect(error.message).toContain('"petId" must be a positive integer');
    },
  );

  test("every response says the operation is deprecated, with its sunset and successor", async () => {
    const app = testApp();
    await createPets(app, [{ name: "Rex", categoryId: 2 }]);
    expectDeprecated(await get(app, "/v1/pets/1"));
    expectDeprecated(await get(app, "/v1/pets/2"));
    expectDeprecated(await get(app, "/v1/pets/x"));
    expectDeprecated(await call(app, "/v1/pets/1"));
  });

  test("the successor link follows the host of each request, also when hosts alternate", async () => {
    const app = testApp();
    const [pet] = await createPets(app, [{ name: "Rex", categoryId: 2 }]);
    for (const host of ["a.test", "b.test:8080", "a.test", "a.test", "b.test:8080"]) {
      const response = await app.fetch(new Request(`http://${host}/v1/pets/${pet!.id}`, { headers: AUTH }));
      expect(response.status).toBe(200);
      expect(response.headers.get("link")).toBe(`<http://${host}/v1/pets>; rel="successor-version"`);
    }
  });

  test("another method on /pets/{petId} answers 405 with the deprecation headers while every operation of the path is deprecated: the path itself is going away", async () => {
    const path = ROUTES.filter((route) => route.path === "/pets/{petId}");
    const goes = path.every((route) => route.deprecation !== undefined);
    const response = await call(testApp(), "/v1/pets/1", { method: refusedAt("/pets/{petId}"), headers: AUTH });
    expect(response.status).toBe(405);
    expect(response.headers.get("deprecation")).toBe(goes ? "@1795305600" : null);
    expect(response.headers.get("sunset")).toBe(goes ? "Thu, 05 Dec 2030 00:00:00 GMT" : null);
  });

  test("GET /pets is not marked deprecated", async () => {
    const response = await get(testApp(), "/v1/pets");
    expect(response.headers.get("deprecation")).toBeNull();
    expect(response.headers.get("sunset")).toBeNull();
  });
});
