// Hono on Node with its own OpenTelemetry middleware (@hono/otel), the pets API traced with the
// host's API object: the API's spans continue the host's server span.
import * as api from "@opentelemetry/api";
import { serve } from "@hono/node-server";
import { httpInstrumentationMiddleware } from "@hono/otel";
import { Hono } from "hono";
import { createApp, createMemoryStore } from "animal-store";
import { tracing } from "animal-store/tracing";
import { recordedSpans } from "./otel-setup.js";

const traces = tracing({ api, basePath: "/pets-api/v1" });
const pets = traces.wrap(createApp({ store: traces.store(createMemoryStore()), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" }));
const app = new Hono();
app.use("*", httpInstrumentationMiddleware());
app.all("/pets-api/*", (c) => pets.fetch(c.req.raw));
app.get("/spans", (c) => c.json(recordedSpans()));

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 8080), hostname: "127.0.0.1" }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`);
});
