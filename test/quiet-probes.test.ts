/**
 * @module
 * `LOG_HEALTH=off`: the wraps it quiets (the access log, the spans) are passed by the health probes'
 * requests alone, exactly those paths, so no request of the API can hide from the log as a probe.
 */
import { expect, test } from "bun:test";
import type { App, Wrap } from "../src/mod.ts";
import { _answerNowOf, _appAnsweringNow } from "../src/_internal/_answer-now.ts";
import { exceptProbes, isProbe } from "../adapters/server/quiet-probes.ts";

test("a probe's path, absolute or alone, with or without a query, is a probe; nothing else is", () => {
  for (const url of ["/health", "/health/live", "/health/ready?x=1", "http://10.0.0.5:8080/health/started", "https://[::1]/health?probe=k8s"]) expect([url, isProbe(url)]).toEqual([url, true]);
  for (const url of ["/healthz", "/health/", "/health/live/x", "/health/../v1/pets", "/v1/health", "/HEALTH", "http://health/v1/pets", "/health%2Flive"]) expect([url, isProbe(url)]).toEqual([url, false]);
});

test("the wrap sees every request but the probes', which reach the app as they are", async () => {
  const seen: string[] = [];
  const recording: Wrap = (app) => ({ fetch: (request, connection) => (seen.push(new URL(request.url).pathname), app.fetch(request, connection)), onError: app.onError });
  const app = exceptProbes(recording)({ fetch: async (request) => new Response(new URL(request.url).pathname), onError: () => {} });
  for (const path of ["/health/live", "/v1/pets", "/health", "/v1/pets/1"]) expect(await (await app.fetch(new Request(`http://x${path}`))).text()).toBe(path);
  expect(seen).toEqual(["/v1/pets", "/v1/pets/1"]);
});

test("an app and a wrap that answer now still answer now through the filter, a probe and an API request alike, and fetch still promises", async () => {
  const app = _appAnsweringNow((request) => new Response(new URL(request.url).pathname), () => {});
  // As the access log passes an answer on: now when the app gave it now.
  const passing: Wrap = (inner) => {
    const answer = _answerNowOf(inner);
    return _appAnsweringNow((request, connection) => answer(request, connection), inner.onError);
  };
  const quiet: App = exceptProbes(passing)(app);
  for (const path of ["/health/live", "/v1/pets"]) {
    const now = _answerNowOf(quiet)(new Request(`http://x${path}`));
    expect([path, now instanceof Response]).toEqual([path, true]);
    const promised = quiet.fetch(new Request(`http://x${path}`));
    expect(promised).toBeInstanceOf(Promise);
    expect(await (await promised).text()).toBe(path);
  }
});
