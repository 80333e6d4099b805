/**
 * @module
 * The same API written the way a Hono user would: an in-memory Map, the same validation rules and
 * error object, routes and middleware from Hono. The peer the project is compared with on every
 * runtime (Elysia and Fastify are the faster peers on Bun and Node).
 */
import process from "node:process";
import { Hono } from "hono";
import type { Context } from "hono";
import { logger } from "hono/logger";
import type { Status } from "./peer-api.ts";
import { createPetMap, deprecationHeaders, nextLink, refusedKey, STATUSES } from "./peer-api.ts";
import { TRACED } from "./peer-tracing.ts";

function error(c: Context, status: 400 | 401 | 404 | 415, code: string, message: string, headers: Record<string, string> = {}) {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json({ code, message, status }, status);
}

/**
 * A Hono app holding `count` seeded pets; with `PEER_LOG=on`, Hono's own request log first; traced,
 * with @hono/otel's middleware (the SDK registered by peer-tracing.ts).
 */
export async function createHonoApp(count: number): Promise<Hono> {
  const pets = createPetMap(count);

  const app = new Hono();
  // The log a Hono user turns on: hono/logger's two text lines a request (in and out) through
  // console.log, on stdout, which the benchmark writes to a file as it does the project's log.
  if (process.env["PEER_LOG"] === "on") app.use(logger());
  if (TRACED) app.use((await import("@hono/otel")).httpInstrumentationMiddleware({ serviceName: "hono" }));
  app.use("/v1/*", async (c, next) => {
    const refused = refusedKey(c.req.header("authorization"));
    if (refused !== undefined) return error(c, 401, refused.body.code, refused.body.message, refused.headers);
    await next();
  });

  app.get("/v1/pets", (c) => {
    const limitText = c.req.query("limit") ?? "20";
    const status = c.req.query("status");
    const after = Number(c.req.query("after") ?? 0);
    const limit = Number(limitText);
    const problems: string[] = [];
    if (!/^[0-9]+$/.test(limitText) || limit < 1 || limit > 100) problems.push(`"limit" must be an integer from 1 to 100`);
    if (status !== undefined && !STATUSES.includes(status as Status)) problems.push(`"status" must be one of available, pending, sold`);
    if (!Number.isSafeInteger(after) || after < 0) problems.push(`"after" must be a pet id`);
    if (problems.length > 0) return error(c, 400, "invalid_query", `Cannot list pets: ${problems.join("; ")}`);
    const page = pets.page(limit, after, status as Status | undefined);
    if (page.nextAfter !== undefined) c.header("link", nextLink(new URL(c.req.url).origin, limit, status as Status | undefined, page.nextAfter));
    return c.json(page.pets);
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
    if (status !== undefined && !STATUSES.includes(status as Status)) problems.push(`"status" must be one of available, pending, sold`);
    if (problems.length > 0) return error(c, 400, "invalid_body", `Cannot create pet: ${problems.join("; ")}`);
    const fields = { name: name as string, categoryId: categoryId as number };
    const pet = pets.add(status === undefined ? fields : { ...fields, status: status as Status });
    c.header("location", `${new URL(c.req.url).origin}/v1/pets/${pet.id}`);
    return c.json(pet, 201);
  });

  app.get("/v1/pets/:petId", (c) => {
    for (const [name, value] of Object.entries(deprecationHeaders(new URL(c.req.url).origin))) c.header(name, value);
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
