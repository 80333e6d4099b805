/**
 * @module
 * The same API written the way a Hono user would: an in-memory Map, the same validation rules and
 * error object, routes and middleware from Hono. The peer the project is compared with.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { KEY, seedPet } from "../fixtures.ts";

type Status = "available" | "pending" | "sold";
interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status?: Status;
}

const STATUSES = new Set(["available", "pending", "sold"]);

function error(c: Context, status: 400 | 401 | 404 | 415, code: string, message: string, headers: Record<string, string> = {}) {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json({ code, message, status }, status);
}

/** A Hono app holding `count` seeded pets. */
export function createHonoApp(count: number): Hono {
  const pets = new Map<number, Pet>();
  let lastId = 0;
  for (let id = 1; id <= count; id++) pets.set(id, { id, ...seedPet(id, count) });
  lastId = count;

  const app = new Hono();
  app.use("/v1/*", async (c, next) => {
    const header = c.req.header("authorization");
    const match = header === undefined ? null : /^bearer +(\S+)$/i.exec(header);
    if (match?.[1] !== KEY) {
      const challenge = header === undefined ? 'Bearer realm="animal-store"' : 'Bearer realm="animal-store", error="invalid_token"';
      return error(c, 401, "unauthorized", "Missing or invalid API key", { "www-authenticate": challenge });
    }
    await next();
  });

  app.get("/v1/pets", (c) => {
    const limitText = c.req.query("limit") ?? "20";
    const status = c.req.query("status");
    const after = Number(c.req.query("after") ?? 0);
    const limit = Number(limitText);
    const problems: string[] = [];
    if (!/^[0-9]+$/.test(limitText) || limit < 1 || limit > 100) problems.push(`"limit" must be an integer from 1 to 100`);
    if (status !== undefined && !STATUSES.has(status)) problems.push(`"status" must be one of available, pending, sold`);
    if (!Number.isSafeInteger(after) || after < 0) problems.push(`"after" must be a pet id`);
    if (problems.length > 0) return error(c, 400, "invalid_query", `Cannot list pets: ${problems.join("; ")}`);
    const page: Pet[] = [];
    for (const pet of pets.values()) {
      if (pet.id > after && (status === undefined || pet.status === status)) page.push(pet);
      if (page.length > limit) break;
    }
    if (page.length > limit) {
      page.pop();
      const statusPart = status === undefined ? "" : `&status=${status}`;
      c.header("link", `<${new URL(c.req.url).origin}/v1/pets?limit=${limit}${statusPart}&after=${page[page.length - 1]!.id}>; rel="next"`);
    }
    return c.json(page);
  });

  app.post("/v1/pets", async (c) => {
    if (!(c.req.header("content-type") ?? "").startsWith("application/json")) {
      return error(c, 415, "unsupported_media_type", "Cannot create pet: body must be application/json");
    }
    let body: Record<string, unknown>;
    try {
      body = await c.req.json();
    } catch {
      return error(c, 400, "invalid_body", "Cannot create pet: body is not valid JSON");
    }
    const problems: string[] = [];
    for (const key of Object.keys(body)) if (!["name", "categoryId", "status"].includes(key)) problems.push(`unknown field "${key}"`);
    const { name, categoryId, status } = body;
    if (typeof name !== "string" || name.trim() === "" || name.length > 200) problems.push(`"name" must be a non-empty string`);
    if (typeof categoryId !== "number" || !Number.isSafeInteger(categoryId)) problems.push(`"categoryId" must be an integer`);
    if (status !== undefined && !STATUSES.has(status as string)) problems.push(`"status" must be one of available, pending, sold`);
    if (problems.length > 0) return error(c, 400, "invalid_body", `Cannot create pet: ${problems.join("; ")}`);
    lastId += 1;
    const pet: Pet = { id: lastId, name: name as string, categoryId: categoryId as number };
    if (status !== undefined) pet.status = status as Status;
    pets.set(pet.id, pet);
    c.header("location", `${new URL(c.req.url).origin}/v1/pets/${pet.id}`);
    return c.json(pet, 201);
  });

  app.get("/v1/pets/:petId", (c) => {
    c.header("deprecation", "@1795305600");
    c.header("sunset", "Thu, 05 Dec 2030 00:00:00 GMT");
    c.header("link", `<${new URL(c.req.url).origin}/v1/pets>; rel="successor-version"`);
    const text = c.req.param("petId");
    const id = Number(text);
    if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(id)) {
      return error(c, 400, "invalid_path", `Cannot get pet: "petId" must be a positive integer`);
    }
    const pet = pets.get(id);
    return pet === undefined ? error(c, 404, "not_found", `Cannot get pet: no pet has id ${id}`) : c.json(pet);
  });
  return app;
}
