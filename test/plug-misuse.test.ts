/**
 * @module
 * A host's mistakes with plugs and options (issue 41, item 9): `createApp` refuses a plug given twice
 * and an option it does not know (naming what replaced it), and any fault of a plug at request time
 * is the one 500 error object, reported once to `onError`.
 */
import { describe, expect, test } from "bun:test";
import type { AppOptions, Plug } from "../src/mod.ts";
import { createApp, createMemoryStore } from "../src/mod.ts";
import { cors } from "../src/plugs/cors/mod.ts";
import { health } from "../src/plugs/health/mod.ts";
import { rateLimit } from "../src/plugs/rate-limit/mod.ts";
import { referencePage } from "../src/plugs/reference-page/mod.ts";
import { AUTH, call, errorOf, KEY } from "./helpers.ts";

const PAGE = "http://a.example";

/** An app with `plugs`, and the errors it reports. */
function appWith(plugs: readonly Plug[]) {
  const reported: unknown[] = [];
  const app = createApp({ store: createMemoryStore(), apiKeys: [KEY], plugs, onError: (error) => void reported.push(error) });
  return { app, reported };
}

/** Calls `createApp` with options as a host written in JavaScript might pass them. */
function createWith(options: Record<string, unknown>): () => void {
  return () => void createApp({ store: createMemoryStore(), apiKeys: [KEY], ...options } as unknown as AppOptions);
}

describe("createApp refuses a plug given twice", () => {
  test("two plugs of one kind (cors twice would send Access-Control-Allow-Origin twice, which browsers refuse)", () => {
    expect(createWith({ plugs: [cors([PAGE]), cors([PAGE])] })).toThrow('Cannot create app: the plug "cors" is given twice in "plugs"; give each plug once');
    expect(createWith({ plugs: [rateLimit({ requests: 1, seconds: 1 }), health(), rateLimit({ requests: 2, seconds: 1 })] })).toThrow('the plug "rateLimit" is given twice');
  });

  test("one plug object given twice, named or not", () => {
    const anonymous: Plug = () => ({});
    expect(createWith({ plugs: [anonymous, anonymous] })).toThrow("Cannot create app: a plug is given twice in \"plugs\" (plugs[0] and plugs[1])");
    const page = referencePage();
    expect(createWith({ plugs: [page, page] })).toThrow('the plug "referencePage" is given twice');
  });

  test("different plugs, each once, are taken", () => {
    expect(createWith({ plugs: [health(), rateLimit({ requests: 1, seconds: 1 }), cors([PAGE]), referencePage(), () => ({}), () => ({})] })).not.toThrow();
  });
});

describe("a plug's fault at request time is the one 500, reported once", () => {
  const faults: [string, Plug][] = [
    ["an answer that is not a Response", () => ({ early: () => ({ answer: "hello" as unknown as Response }) })],
    ["an answer promise that resolves to something else", () => ({ late: () => ({ answer: Promise.resolve({ status: 200 } as unknown as Response) }) })],
    ["a header value with a line break", () => ({ early: () => ({ headers: { "x-plug": "a\r\nset-cookie: forged" } }) })],
    ["a header name that is not a token", () => ({ early: () => ({ headers: { "x plug": "1" } }) })],
    ["a step that throws", () => ({ early: () => { throw new Error("plug broke"); } })],
    ["an answer that rejects", () => ({ late: () => ({ answer: Promise.reject(new Error("plug broke")) }) })],
  ];
  for (const [fault, plug] of faults) {
    test(fault, async () => {
      const { app, reported } = appWith([cors([PAGE]), plug]);
      const response = await call(app, "/v1/pets", { headers: { ...AUTH, origin: PAGE } });
      expect(response.status).toBe(500);
      expect(await errorOf(response)).toEqual({ code: "internal_error", message: expect.any(String), status: 500 });
      expect(reported).toHaveLength(1);
      // The headers of the plugs asked before the fault are kept where they are sound.
      expect(response.headers.get("access-control-allow-origin")).toBe(PAGE);
      expect(response.headers.has("x-plug")).toBe(false);
    });
  }
});

describe("createApp refuses options it does not know", () => {
  test("the options that became plugs name the plug that replaced them", () => {
    expect(createWith({ corsOrigins: [PAGE] })).toThrow('Cannot create app: the option "corsOrigins" is gone; pass plugs: [cors([...])] (import { cors } from "animal-store/cors")');
    expect(createWith({ rateLimit: { requests: 1, seconds: 1 } })).toThrow('the option "rateLimit" is gone; pass plugs: [rateLimit({ requests, seconds })] (import { rateLimit } from "animal-store/rate-limit")');
    expect(createWith({ referencePage: true })).toThrow('the option "referencePage" is gone; pass plugs: [referencePage()] (import { referencePage } from "animal-store/reference-page")');
  });

  test("any other unknown option is refused, naming the known ones", () => {
    expect(createWith({ apiKey: "k" })).toThrow('Cannot create app: unknown option "apiKey"; the options are store, apiKeys, basePath, maxBodyBytes, realm, onError, plugs, publicUrl, trustProxy');
  });
});
