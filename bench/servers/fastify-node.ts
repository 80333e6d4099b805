/**
 * @module
 * The API written the way a Fastify user would, on Node: JSON Schema for querystring, params and
 * body (compiled by Ajv), response schemas (serialised by fast-json-stringify), the key checked in an
 * `onRequest` hook, errors rendered in one error handler, an in-memory `Map`. The peer the project
 * is measured against on Node.
 */
import Fastify from "fastify";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { ErrorObject, Status } from "./peer-api.ts";
import { createPetMap, deprecationHeaders, nextLink, refusedKey, STATUSES } from "./peer-api.ts";
import { TRACED } from "./peer-tracing.ts";

const pets = createPetMap(Number(process.env.PETS ?? 1000));

const pet = {
  type: "object",
  properties: {
    id: { type: "integer" },
    name: { type: "string" },
    categoryId: { type: "integer" },
    status: { type: "string", enum: STATUSES },
  },
  required: ["id", "name", "categoryId"],
} as const;
const error = {
  type: "object",
  properties: { code: { type: "string" }, message: { type: "string" }, status: { type: "integer" } },
  required: ["code", "message", "status"],
} as const;

/** The error code and message prefix for each part of a request that its schema refused. */
const REFUSALS: Record<string, { code: string; action: string }> = {
  querystring: { code: "invalid_query", action: "Cannot list pets" },
  params: { code: "invalid_path", action: "Cannot get pet" },
  body: { code: "invalid_body", action: "Cannot create pet" },
};

/** The error codes of the other refusals Fastify makes itself (a body that is not JSON, or too large). */
const ERROR_CODES: Record<number, string> = { 400: "invalid_body", 413: "payload_too_large", 415: "unsupported_media_type" };

const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

// Fastify strips unknown body fields by default; the API refuses them, as the project does.
// PEER_LOG=on turns on Fastify's own log (pino, JSON lines on stdout) the way its users do, to
// compare like with like against the project's default, which logs.
const app = Fastify({ ajv: { customOptions: { removeAdditional: false } }, logger: process.env.PEER_LOG === "on" });
// With OTEL_EXPORTER_OTLP_ENDPOINT set, @fastify/otel's plugin traces every request (and its hooks and
// handler) with the SDK registered by peer-tracing.ts, as its guide registers it.
if (TRACED) await app.register(new (await import("@fastify/otel")).FastifyOtelInstrumentation({ servername: "fastify" }).plugin());

app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
  const refused = refusedKey(request.headers.authorization);
  if (refused === undefined) return;
  return reply.code(401).headers(refused.headers).send(refused.body);
});

app.setErrorHandler((failure: FastifyError, _request, reply) => {
  const refusal = REFUSALS[failure.validationContext ?? "body"]!;
  const status = failure.statusCode !== undefined && failure.statusCode < 500 ? failure.statusCode : 500;
  const code = failure.validation !== undefined ? refusal.code : ERROR_CODES[status] ?? "internal_error";
  const message = status === 500 ? "An unexpected error occurred" : `${refusal.action}: ${failure.message}`;
  const answer: ErrorObject = { code, message, status };
  return reply.code(status).send(answer);
});

app.setNotFoundHandler((_request, reply) => {
  const answer: ErrorObject = { code: "not_found", message: "Cannot find this resource", status: 404 };
  return reply.code(404).send(answer);
});

app.get<{ Querystring: { limit: number; status?: Status; after: number } }>("/v1/pets", {
  schema: {
    querystring: {
      type: "object",
      properties: {
        limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
        status: { type: "string", enum: STATUSES },
        after: { type: "integer", minimum: 0, default: 0 },
      },
      additionalProperties: false,
    },
    response: { 200: { type: "array", items: pet }, "4xx": error },
  },
}, async (request, reply) => {
  const { limit, status, after } = request.query;
  const page = pets.page(limit, after, status);
  if (page.nextAfter !== undefined) reply.header("link", nextLink(origin(request), limit, status, page.nextAfter));
  return page.pets;
});

app.post<{ Body: { name: string; categoryId: number; status?: Status } }>("/v1/pets", {
  schema: {
    body: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 200 },
        categoryId: { type: "integer" },
        status: { type: "string", enum: STATUSES },
      },
      required: ["name", "categoryId"],
      additionalProperties: false,
    },
    response: { 201: pet, "4xx": error },
  },
}, async (request, reply) => {
  const stored = pets.add(request.body);
  return reply.code(201).header("location", `${origin(request)}/v1/pets/${stored.id}`).send(stored);
});

app.get<{ Params: { petId: number } }>("/v1/pets/:petId", {
  schema: {
    params: { type: "object", properties: { petId: { type: "integer", minimum: 1 } }, required: ["petId"] },
    response: { 200: pet, "4xx": error },
  },
  // Before validation, so that every answer of getPet, a refused id included, is marked deprecated.
  onRequest: async (request, reply) => void reply.headers(deprecationHeaders(origin(request))),
}, async (request, reply) => {
  const found = pets.get(request.params.petId);
  if (found !== undefined) return found;
  const answer: ErrorObject = { code: "not_found", message: `Cannot get pet: no pet has id ${request.params.petId}`, status: 404 };
  return reply.code(404).send(answer);
});

app.listen({ port: 0, host: "127.0.0.1" }).then((address) => console.log(`listening on ${address}/v1`));
