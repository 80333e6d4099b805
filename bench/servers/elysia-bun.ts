/**
 * @module
 * The API written the way an Elysia user would, on Bun: `t` schemas for query, params and body
 * (compiled by Elysia), the key checked in a `beforeHandle` hook, errors rendered in `onError`, an
 * in-memory `Map`. The peer the project is measured against on Bun.
 */
import { logger } from "@bogeychan/elysia-logger";
import { Elysia, t, ValidationError } from "elysia";
import { TRACED } from "./peer-tracing.ts";
import type { ErrorObject } from "./peer-api.ts";
import { createPetMap, deprecationHeaders, nextLink, originOf, refusedKey, STATUSES } from "./peer-api.ts";

const pets = createPetMap(Number(process.env.PETS ?? 1000));
const status = t.Union(STATUSES.map((value) => t.Literal(value)));

/** A route's error hook: its validation failures answered with the error object under `code`. */
function refuseAs(code: string, action: string) {
  return ({ code: kind, error, set }: { code: unknown; error: unknown; set: { status?: number | string } }): ErrorObject | undefined => {
    if (kind !== "VALIDATION" && kind !== "PARSE") return undefined;
    set.status = 400;
    const problems = error instanceof ValidationError ? error.all.map((problem) => problem.summary ?? problem.message) : ["body is not valid JSON"];
    return { code, message: `${action}: ${problems.join("; ")}`, status: 400 };
  };
}

// PEER_LOG=on adds the request log an Elysia user adds (Elysia has none of its own):
// @bogeychan/elysia-logger, pino's JSON lines on stdout, one a request. Before the routes, so it sees them.
// With OTEL_EXPORTER_OTLP_ENDPOINT set, @elysiajs/opentelemetry traces every request with the SDK
// registered by peer-tracing.ts, as its guide's "preload" setup does.
const base = new Elysia({ prefix: "/v1" });
const logged = (process.env.PEER_LOG === "on" ? base.use(logger()) : base) as typeof base;
const app = (TRACED ? logged.use((await import("@elysiajs/opentelemetry")).opentelemetry({ serviceName: "elysia" })) : logged) as typeof base;

app
  .onError(({ code, set }): ErrorObject | undefined => {
    if (code !== "NOT_FOUND") return undefined;
    set.status = 404;
    return { code: "not_found", message: "Cannot find this resource", status: 404 };
  })
  .onBeforeHandle(({ headers, set }) => {
    const refused = refusedKey(headers.authorization);
    if (refused === undefined) return;
    set.status = 401;
    Object.assign(set.headers, refused.headers);
    return refused.body;
  })
  .get(
    "/pets",
    ({ query, request, set }) => {
      const limit = query.limit ?? 20;
      const page = pets.page(limit, query.after ?? 0, query.status);
      if (page.nextAfter !== undefined) set.headers.link = nextLink(originOf(request.url), limit, query.status, page.nextAfter);
      return page.pets;
    },
    {
      query: t.Object({
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
        status: t.Optional(status),
        after: t.Optional(t.Integer({ minimum: 0 })),
      }, { additionalProperties: false }),
      error: refuseAs("invalid_query", "Cannot list pets"),
    },
  )
  .post(
    "/pets",
    ({ body, request, set }) => {
      const pet = pets.add(body);
      set.status = 201;
      set.headers.location = `${originOf(request.url)}/v1/pets/${pet.id}`;
      return pet;
    },
    {
      body: t.Object({
        name: t.String({ minLength: 1, maxLength: 200 }),
        categoryId: t.Integer(),
        status: t.Optional(status),
      }, { additionalProperties: false }),
      error: refuseAs("invalid_body", "Cannot create pet"),
    },
  )
  .get(
    "/pets/:petId",
    ({ params, set }) => {
      const pet = pets.get(params.petId);
      if (pet !== undefined) return pet;
      set.status = 404;
      return { code: "not_found", message: `Cannot get pet: no pet has id ${params.petId}`, status: 404 } satisfies ErrorObject;
    },
    {
      params: t.Object({ petId: t.Integer({ minimum: 1 }) }),
      error: refuseAs("invalid_path", "Cannot get pet"),
      // Before validation, so that every answer of getPet, a refused id included, is marked deprecated.
      transform: ({ request, set }) => void Object.assign(set.headers, deprecationHeaders(originOf(request.url))),
    },
  )
  .listen({ port: 0, hostname: "127.0.0.1" });

console.log(`listening on http://127.0.0.1:${app.server!.port}/v1`);

// Bun's --cpu-prof writes its profile when the process exits: exit on SIGINT rather than die of it (bench/profile.ts).
process.on("SIGINT", () => process.exit(0));
