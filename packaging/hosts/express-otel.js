// Express 5 whose own middleware starts a server span per request from the incoming traceparent,
// as a hand-made OpenTelemetry setup does; the pets API traced with the host's API object
// continues that span.
import * as api from "@opentelemetry/api";
import express from "express";
import { createApp, createMemoryStore } from "animal-store";
import { toNodeListener } from "animal-store/node";
import { tracing } from "animal-store/tracing";
import { recordedSpans } from "./otel-setup.js";

const tracer = api.trace.getTracer("express-host");
const traces = tracing({ api, basePath: "/pets-api/v1" });
const pets = traces.wrap(createApp({ store: traces.store(createMemoryStore()), apiKeys: ["my-secret-key"], basePath: "/pets-api/v1" }));
const app = express();
app.use((req, res, next) => {
  const parent = api.propagation.extract(api.context.active(), req.headers);
  tracer.startActiveSpan(`${req.method} (express)`, { kind: api.SpanKind.SERVER }, parent, (span) => {
    res.on("finish", () => span.end());
    next();
  });
});
app.get("/spans", (req, res) => res.json(recordedSpans()));
app.all("/pets-api/v1/{*rest}", toNodeListener(pets.fetch));

const server = app.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
