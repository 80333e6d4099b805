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
