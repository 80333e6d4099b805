import { describe, expect, test } from "bun:test";
import { readJsonBody } from "../src/read-body.ts";

/** The refusal of a body sent as text/plain with `method`. */
async function refusalOf(method: string) {
  const request = new Request("http://pets.test/v1/pets/1", { method, headers: { "content-type": "text/plain" }, body: "{}" });
  const read = await readJsonBody(request, 65536, "Cannot change pet");
  return read.ok ? undefined : read.refusal;
}

describe("a body that is not JSON", () => {
  test("POST answers 415 naming the accepted media type in Accept-Post", async () => {
    expect(await refusalOf("POST")).toEqual({
      code: "unsupported_media_type",
      message: 'Cannot change pet: body must be application/json, got Content-Type "text/plain"',
      headers: { "accept-post": "application/json" },
    });
  });

  test("PATCH answers 415 naming it in Accept-Patch (RFC 5789), never Accept-Post", async () => {
    expect((await refusalOf("PATCH"))?.headers).toEqual({ "accept-patch": "application/json" });
  });

  test("a method without such a field (PUT) answers 415 with neither", async () => {
    expect((await refusalOf("PUT"))?.headers).toBeUndefined();
  });
});

describe("a body that cannot be read to its end", () => {
  test("a body already read answers 400 invalid_body", async () => {
    const request = new Request("http://pets.test/v1/pets", { method: "POST", headers: { "content-type": "application/json", "content-length": "2" }, body: "{}" });
    await request.text();
    expect(await readJsonBody(request, 65536, "Cannot create pet")).toEqual({
      ok: false,
      refusal: { code: "invalid_body", message: "Cannot create pet: the body could not be read to its end" },
    });
  });

  test("a streamed body that fails half-way answers the same", async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":'));
        controller.error(new Error("connection reset"));
      },
    });
    const request = new Request("http://pets.test/v1/pets", { method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" } as RequestInit);
    expect(await readJsonBody(request, 65536, "Cannot create pet")).toEqual({
      ok: false,
      refusal: { code: "invalid_body", message: "Cannot create pet: the body could not be read to its end" },
    });
  });
});
