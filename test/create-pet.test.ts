import { describe, expect, test } from "bun:test";
import type { Pet } from "../src/mod.ts";
import { validateStoredPet } from "../src/validate-pet.ts";
import { AUTH, call, errorOf, get, post, testApp } from "./helpers.ts";

async function createError(body: unknown, headers: Record<string, string> = {}) {
  const response = await post(testApp(), body, headers);
  return { response, error: await errorOf(response) };
}

describe("POST /pets", () => {
  test("answers 201 with the stored pet, its id, and a Location to it", async () => {
    const response = await post(testApp(), { name: "Rex", categoryId: 3, status: "available" });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json");
    const pet = (await response.json()) as Pet;
    expect(pet).toEqual({ id: pet.id, name: "Rex", categoryId: 3, status: "available" });
    expect(Number.isSafeInteger(pet.id) && pet.id > 0).toBe(true);
    expect(response.headers.get("location")).toBe(`http://pets.test/v1/pets/${pet.id}`);
  });

  test("a created pet can be fetched and listed", async () => {
    const app = testApp();
    const pet = (await (await post(app, { name: "Rex", categoryId: 3 })).json()) as Pet;
    expect(await (await get(app, `/v1/pets/${pet.id}`)).json()).toEqual(pet);
    expect(await (await get(app, "/v1/pets")).json()).toEqual([pet]);
  });

  test("status omitted on create stays omitted in every response", async () => {
    const app = testApp();
    const pet = (await (await post(app, { name: "Rex", categoryId: 3 })).json()) as Pet;
    expect("status" in pet).toBe(false);
    expect("status" in ((await (await get(app, `/v1/pets/${pet.id}`)).json()) as Pet)).toBe(false);
  });

  test("ids are unique and increase with each create", async () => {
    const app = testApp();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(((await (await post(app, { name: "a", categoryId: 1 })).json()) as Pet).id);
    expect(new Set(ids).size).toBe(5);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  test("concurrent creates all succeed with distinct ids", async () => {
    const app = testApp();
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => post(app, { name: `p${i}`, categoryId: i })));
    const ids = await Promise.all(responses.map(async (response) => ((await response.json()) as Pet).id));
    expect(new Set(ids).size).toBe(50);
  });

  test.each([
    ["name missing", { categoryId: 1 }, '"name" is required'],
    ["categoryId missing", { name: "Rex" }, '"categoryId" is required'],
    ["name not a string", { name: 5, categoryId: 1 }, '"name" must be a string, got 5'],
    ["name empty", { name: "", categoryId: 1 }, '"name" must not be empty'],
    ["name only whitespace", { name: "  \t", categoryId: 1 }, '"name" must not be empty'],
    ["name too long", { name: "x".repeat(201), categoryId: 1 }, '"name" must be at most 200 characters, got 201'],
    ["categoryId a string", { name: "Rex", categoryId: "1" }, '"categoryId" must be an integer, got "1"'],
    ["categoryId a fraction", { name: "Rex", categoryId: 1.5 }, '"categoryId" must be an integer, got 1.5'],
    ["categoryId null", { name: "Rex", categoryId: null }, '"categoryId" must be an integer, got null'],
    ["categoryId a boolean", { name: "Rex", categoryId: true }, '"categoryId" must be an integer, got true'],
    ["status unknown", { name: "Rex", categoryId: 1, status: "lost" }, '"status" must be one of "available", "pending", "sold", got "lost"'],
    ["status null", { name: "Rex", categoryId: 1, status: null }, '"status" must be one of'],
    ["id sent", { id: 7, name: "Rex", categoryId: 1 }, '"id" is assigned by the service and must not be sent'],
    ["unknown field", { name: "Rex", categoryId: 1, colour: "red" }, 'unknown field "colour"'],
    ["constructor field", { name: "Rex", categoryId: 1, constructor: {} }, 'unknown field "constructor"'],
  ])("%s answers 400 invalid_body saying so", async (_, body, expected) => {
    const { response, error } = await createError(body);
    expect(response.status).toBe(400);
    expect(error.code).toBe("invalid_body");
    expect(error.message).toStartWith("Cannot create pet: ");
    expect(error.message).toContain(expected);
  });

  test("a member given twice counts once, with its last value, as JSON.parse reads it", async () => {
    const response = await post(testApp(), '{"name":"First","name":"Second","categoryId":1}');
    expect(response.status).toBe(201);
    expect(((await response.json()) as Pet).name).toBe("Second");
  });

  test("a name of exactly 200 characters, counted as code points, is accepted", async () => {
    const app = testApp();
    expect((await post(app, { name: "x".repeat(200), categoryId: 1 })).status).toBe(201);
    expect((await post(app, { name: "🐶".repeat(200), categoryId: 1 })).status).toBe(201);
  });

  test.each([
    ["U+0000", "a\u0000b", "U+0000 at character 2"],
    ["a tab", "Rex\tII", "U+0009 at character 4"],
    ["a line break after an emoji", "🐶\nRex", "U+000A at character 2"],
    ["DEL", "Rex\u007f", "U+007F at character 4"],
    ["a C1 control (CSI)", "\u009b31mRex", "U+009B at character 1"],
  ])("a name holding %s answers 400 invalid_body naming the character", async (_, name, where) => {
    const { response, error } = await createError({ name, categoryId: 1 });
    expect(response.status).toBe(400);
    expect(error.code).toBe("invalid_body");
    expect(error.message).toBe(`Cannot create pet: "name" must not contain control characters (U+0000 to U+001F, U+007F to U+009F), got ${where}`);
  });

  test("a stored record whose name holds a control character (written before they were refused) still loads", () => {
    expect(validateStoredPet('{"id":3,"name":"Rex\\tII","categoryId":1}')).toEqual({ ok: true, value: { id: 3, name: "Rex\tII", categoryId: 1 } });
  });

  test("a name with other invisible or unusual characters is stored as sent", async () => {
    const app = testApp();
    for (const name of ["Rex\u00a0II", "👩\u200d🚀", "Rex\u202e", "\u00adRex"]) {
      const response = await post(app, { name, categoryId: 1 });
      expect(response.status).toBe(201);
      expect(((await response.json()) as Pet).name).toBe(name);
    }
  });

  test("a name with a lone surrogate answers 400", async () => {
    const { error } = await createError('{"name":"\\ud800","categoryId":1}');
    expect(error.message).toContain('"name" must be valid Unicode text');
  });

  test("every problem in the body is reported in one message", async () => {
    const { error } = await createError({ id: 1, name: "", categoryId: "x", status: "lost", extra: 1 });
    for (const field of ['"id"', '"name"', '"categoryId"', '"status"', '"extra"']) expect(error.message).toContain(field);
  });

  test("a __proto__ key is refused as an unknown field and pollutes nothing", async () => {
    const { error } = await createError('{"name":"Rex","categoryId":1,"__proto__":{"polluted":true}}');
    expect(error.message).toContain('unknown field "__proto__"');
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  test.each([
    ["9007199254740992", "must be between -9007199254740991 and 9007199254740991, got 9007199254740992"],
    ["9007199254740993", "must be between -9007199254740991 and 9007199254740991, got 9007199254740993"],
    ["-9007199254740993", "got -9007199254740993"],
    ["9007199254740991.4", "must be written as a plain integer (no fraction or exponent), got 9007199254740991.4"],
    ["1.0000000000000001", "got 1.0000000000000001"],
    ["1.0", "must be written as a plain integer (no fraction or exponent), got 1.0"],
    ["1e2", "got 1e2"],
    ["1e400", "got 1e400"],
  ])("categoryId %s is refused, never rounded", async (literal, expected) => {
    const { error } = await createError(`{"name":"Rex","categoryId":${literal}}`);
    expect(error.code).toBe("invalid_body");
    expect(error.message).toContain('"categoryId" must be');
    expect(error.message).toContain(expected);
  });

  test("categoryId at ±(2^53 − 1) is stored exactly", async () => {
    const app = testApp();
    for (const categoryId of [9007199254740991, -9007199254740991, 0]) {
      const response = await post(app, `{"name":"Rex","categoryId":${categoryId}}`);
      expect(((await response.json()) as Pet).categoryId).toBe(categoryId);
    }
  });

  test("a string that looks like a number elsewhere does not confuse the categoryId check", async () => {
    const response = await post(testApp(), '{"name":"1.5, \\"categoryId\\": 2e3","categoryId":7}');
    expect(response.status).toBe(201);
    expect(((await response.json()) as Pet).categoryId).toBe(7);
  });

  test.each([
    ["broken JSON", '{"name":', "body is not valid JSON"],
    ["an empty body", "", "body is empty"],
    ["a JSON array", "[]", "body must be a JSON object, got an array"],
    ["a JSON string", '"Rex"', 'body must be a JSON object, got "Rex"'],
    ["JSON null", "null", "body must be a JSON object, got null"],
  ])("%s answers 400 invalid_body", async (_, body, expected) => {
    const { response, error } = await createError(body);
    expect(response.status).toBe(400);
    expect(error.message).toContain(expected);
  });

  test("a UTF-8 byte order mark before the JSON text is ignored (RFC 8259 §8.1; docs/decisions.md): 201", async () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"name":"Rex","categoryId":3}')]);
    const response = await call(testApp(), "/v1/pets", { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: expect.any(Number), name: "Rex", categoryId: 3 });
  });

  test("a second byte order mark, or one after whitespace, is not JSON: 400 invalid_body", async () => {
    for (const text of ['\uFEFF\uFEFF{"name":"Rex","categoryId":3}', ' \uFEFF{"name":"Rex","categoryId":3}']) {
      const { response, error } = await createError(text);
      expect({ status: response.status, code: error.code }).toEqual({ status: 400, code: "invalid_body" });
    }
  });

  test("a body that is not UTF-8 answers 400", async () => {
    const app = testApp();
    const response = await call(app, "/v1/pets", {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/json" },
      body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    });
    const error = await errorOf(response);
    expect(error.message).toContain("not valid UTF-8");
  });

  test.each([
    ["no Content-Type", undefined],
    ["text/plain", "text/plain"],
    ["application/jsonx", "application/jsonx"],
    ["a latin-1 charset", "application/json; charset=iso-8859-1"],
  ])("%s answers 415 with Accept-Post", async (_, contentType) => {
    const app = testApp();
    const headers: Record<string, string> = { ...AUTH };
    if (contentType !== undefined) headers["content-type"] = contentType;
    const response = await call(app, "/v1/pets", { method: "POST", headers, body: '{"name":"Rex","categoryId":1}' });
    expect(response.status).toBe(415);
    expect(response.headers.get("accept-post")).toBe("application/json");
    expect((await errorOf(response)).code).toBe("unsupported_media_type");
  });

  test("Content-Type is matched case-insensitively and may carry charset=utf-8", async () => {
    const response = await post(testApp(), { name: "Rex", categoryId: 1 }, { "content-type": "Application/JSON; charset=UTF-8" });
    expect(response.status).toBe(201);
  });

  test("a compressed body answers 415 with Accept-Encoding: identity", async () => {
    const response = await post(testApp(), { name: "Rex", categoryId: 1 }, { "content-encoding": "gzip" });
    expect(response.status).toBe(415);
    expect(response.headers.get("accept-encoding")).toBe("identity");
  });

  test("a body over 64 KiB answers 413 payload_too_large and stores nothing", async () => {
    const app = testApp();
    const response = await post(app, { name: "x", categoryId: 1, padding: "y".repeat(65536) });
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe("payload_too_large");
    expect(await (await get(app, "/v1/pets")).json()).toEqual([]);
  });

  test("a 413 asks for the connection to be closed, so the client stops sending", async () => {
    const response = await post(testApp(), { name: "x", categoryId: 1, padding: "y".repeat(65536) });
    expect(response.headers.get("connection")).toBe("close");
  });

  test("the body limit is enforced while streaming, without trusting Content-Length", async () => {
    const app = testApp({ maxBodyBytes: 100 });
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled > 1000) controller.close();
        else controller.enqueue(new Uint8Array(64).fill(0x20));
      },
    });
    const response = await call(app, "/v1/pets", {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(10);
  });

  test("the body limit is configurable", async () => {
    const app = testApp({ maxBodyBytes: 40 });
    expect((await post(app, { name: "Rex", categoryId: 1 })).status).toBe(201);
    expect((await post(app, { name: "Rex the dog of the house", categoryId: 1 })).status).toBe(413);
  });
});

describe("POST /pets error messages", () => {
  test("malformed JSON gets the service's own message, the same on every runtime", async () => {
    const response = await post(testApp(), '{"name": "Rex", ');
    expect((await errorOf(response)).message).toBe("Cannot create pet: body is not valid JSON");
  });
});

describe("POST /pets framing", () => {
  test("a Transfer-Encoding other than chunked answers 400 invalid_header, as Bun and Deno refuse it", async () => {
    const response = await post(testApp(), { name: "Rex", categoryId: 1 }, { "transfer-encoding": "identity, chunked" });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe("invalid_header");
  });
});
