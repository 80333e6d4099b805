import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import type { Plug, PetStore } from "../src/mod.ts";
import { health } from "../src/plugs/health/mod.ts";
import { cors } from "../src/plugs/cors/mod.ts";
import { createMemoryStore } from "../src/mod.ts";
import { rateLimit } from "../src/plugs/rate-limit/mod.ts";
import { referencePage } from "../src/plugs/reference-page/mod.ts";
import { createMetrics } from "../adapters/server/metrics.ts";
import { AUTH, call, testApp, undeclaredHeaders } from "./helpers.ts";

const PAGE = "http://localhost:3000";
const NAMES = ["health", "rateLimit", "cors", "referencePage"] as const;
type Name = (typeof NAMES)[number];

/** Every subset of the plugs, each in the standalone server's order. */
const SUBSETS: Name[][] = Array.from({ length: 2 ** NAMES.length }, (_, bits) => NAMES.filter((_, i) => (bits & (1 << i)) !== 0));

/** The plugs of a subset; the rate limit lets `burst` requests through in an hour. */
function plugsOf(names: readonly Name[], burst: number): Plug[] {
  const made: Record<Name, () => Plug> = {
    health: () => health(),
    rateLimit: () => rateLimit({ requests: 1, seconds: 3600, burst }),
    cors: () => cors([PAGE]),
    referencePage: () => referencePage(),
  };
  return names.map((name) => made[name]());
}

function appOf(names: readonly Name[], options: { burst?: number; store?: PetStore } = {}) {
  return testApp({ plugs: plugsOf(names, options.burst ?? 100), onError: () => {}, ...(options.store === undefined ? {} : { store: options.store }) });
}

/** What plugs added to an answer: CORS's origin and Vary, and whether it carries the RateLimit fields. */
function added(response: Response): { origin: string | null; vary: string | null; rateLimit: boolean } {
  return { origin: response.headers.get("access-control-allow-origin"), vary: response.headers.get("vary"), rateLimit: response.headers.has("ratelimit") };
}

function expected(names: readonly Name[]): { origin: string | null; vary: string | null; rateLimit: boolean } {
  const on = names.includes("cors");
  return { origin: on ? PAGE : null, vary: on ? "Origin" : null, rateLimit: names.includes("rateLimit") };
}

const FROM_PAGE = { origin: PAGE };


describe.each(SUBSETS.map((names) => [names.length === 0 ? "none" : names.join(", "), names] as const))("plugs: %s", (_, names) => {
  test("a 200, a 401 and a 404 carry what the plugs add", async () => {
    const app = appOf(names);
    const answers = [
      await call(app, "/v1/pets", { headers: { ...AUTH, ...FROM_PAGE } }),
      await call(app, "/v1/pets", { headers: FROM_PAGE }),
      await call(app, "/v1/nothing-here", { headers: { ...AUTH, ...FROM_PAGE } }),
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 401, 404]);
    for (const response of answers) expect(added(response)).toEqual(expected(names));
  });

  test("every header of an answer of a documented operation is declared on that answer in the document (so CORS exposes it)", async () => {
    const app = appOf(names, { burst: 3 });
    const json = { ...AUTH, ...FROM_PAGE, "content-type": "application/json" };
    const answers: [string, string, Response][] = [
      ["get", "/pets", await call(app, "/v1/pets", { headers: { ...AUTH, ...FROM_PAGE } })],
      ["post", "/pets", await call(app, "/v1/pets", { method: "POST", headers: json, body: '{"name":"Rex","categoryId":1}' })],
      ["get", "/pets/{petId}", await call(app, "/v1/pets/1", { headers: { ...AUTH, ...FROM_PAGE } })],
      ["get", "/pets", await call(app, "/v1/pets", { headers: FROM_PAGE })],
      ["options", "/pets", await call(app, "/v1/pets", { method: "OPTIONS", headers: { ...FROM_PAGE, "access-control-request-method": "POST" } })],
    ];
    for (const [method, path, response] of answers) {
      expect({ method, path, status: response.status, undeclared: undeclaredHeaders(method, path, response) }).toEqual({ method, path, status: response.status, undeclared: [] });
    }
  });

  test("a 500 carries what the plugs add", async () => {
    const store: PetStore = { ...createMemoryStore(), list: () => Promise.reject(new Error("boom")) };
    const response = await call(appOf(names, { store }), "/v1/pets", { headers: { ...AUTH, ...FROM_PAGE } });
    expect(response.status).toBe(500);
    expect(added(response)).toEqual(expected(names));
  });

  test("GET / answers the page with the reference page on, else 404, and carries what the plugs add", async () => {
    const response = await call(appOf(names), "/", { headers: FROM_PAGE });
    expect(response.status).toBe(names.includes("referencePage") ? 200 : 404);
    expect(added(response)).toEqual(expected(names));
  });

  if (names.includes("rateLimit")) {
    test("a 429 carries what the other plugs add", async () => {
      const app = appOf(names, { burst: 1 });
      await call(app, "/v1/pets", { headers: { ...AUTH, ...FROM_PAGE } });
      const refused = await call(app, "/v1/pets", { headers: { ...AUTH, ...FROM_PAGE } });
      expect(refused.status).toBe(429);
      expect(added(refused)).toEqual({ ...expected(names), rateLimit: true });
    });
  }

  if (names.includes("health")) {
    test("GET /health is answered before anything is counted, and carries CORS's headers as every answer does", async () => {
      const app = appOf(names, { burst: 1 });
      for (let i = 0; i < 3; i++) {
        const response = await call(app, "/health", { headers: FROM_PAGE });
        expect(response.status).toBe(200);
        expect(added(response)).toEqual({ ...expected(names), rateLimit: false });
      }
      expect((await call(app, "/v1/pets", { headers: AUTH })).status).toBe(200);
    });
  }
});

describe("a CORS preflight under a rate limit", () => {
  test("is counted and carries the RateLimit fields; past the limit its 429 is still readable by the page", async () => {
    const app = testApp({ plugs: [rateLimit({ requests: 2, seconds: 1, burst: 2 }), cors([PAGE])] });
    const answers: Response[] = [];
    for (let i = 0; i < 40; i++) {
      answers.push(await call(app, "/v1/pets", { method: "OPTIONS", headers: { ...FROM_PAGE, "access-control-request-method": "POST" } }));
    }
    expect(answers[0]!.status).toBe(204);
    expect(answers[0]!.headers.get("ratelimit")).toBe('"default";r=1;t=1');
    const refused = answers.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(30);
    for (const response of refused) expect(added(response)).toEqual({ origin: PAGE, vary: "Origin", rateLimit: true });
  });
});

/** A plug that answers every POST with 503 in its early step, as a maintenance mode would, and reports it. */
const refusingWrites: Plug = () => ({
  name: "refusingWrites",
  early: (request) => (request.method === "POST" ? { answer: new Response(null, { status: 503 }) } : undefined),
  report: () => ({ unready: "writes are refused", gauges: { refusing_writes: { value: 1, help: "1 while writes are refused." } } }),
});

describe("plugs compose whatever their order", () => {
  test.each([["first", true], ["last", false]])("an answer of a plug's early step carries CORS's headers, the plug %s in the list", async (_, first) => {
    const plugs = first ? [refusingWrites, cors([PAGE])] : [cors([PAGE]), refusingWrites];
    const response = await call(testApp({ plugs }), "/v1/pets", { method: "POST", headers: { ...AUTH, ...FROM_PAGE } });
    expect(response.status).toBe(503);
    expect(added(response)).toEqual({ origin: PAGE, vary: "Origin", rateLimit: false });
  });

  test("GET /health reads what another plug reports, without knowing it: 503 naming the plug and its reason", async () => {
    for (const plugs of [[health(), refusingWrites], [refusingWrites, health()]]) {
      const response = await call(testApp({ plugs }), "/health");
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ code: "service_unavailable", message: "Cannot take writes: refusingWrites: writes are refused", status: 503 });
    }
  });

  test("the metrics serve what a plug reports through their own plug, as animal_store_plug_<name>", async () => {
    const metrics = createMetrics({ basePath: "/v1" });
    testApp({ plugs: [refusingWrites, metrics.plug] });
    const text = await metrics.text();
    expect(text).toContain("# HELP animal_store_plug_refusing_writes 1 while writes are refused.\n# TYPE animal_store_plug_refusing_writes gauge\nanimal_store_plug_refusing_writes 1\n");
  });

  test("a plug that reports without a name is refused when the app is made", () => {
    const unnamed: Plug = () => ({ report: () => ({}) });
    expect(() => testApp({ plugs: [unnamed] })).toThrow("reports but has no name");
  });
});

test("every plug of src/plugs/ is in the matrix above", () => {
  const folders = readdirSync("src/plugs");
  expect([...folders].sort()).toEqual(NAMES.map((name) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)).sort());
});
