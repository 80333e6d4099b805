import { describe, expect, test } from "bun:test";
import { FastResponse } from "../adapters/node.ts";

const make = (body?: BodyInit | null, init?: ResponseInit) => new FastResponse(body, init) as unknown as Response & FastResponse;

describe("FastResponse, the Node adapter's Response", () => {
  test("reads like a Response: status, ok, headers and body text", async () => {
    const response = make('{"a":1}', { status: 201, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe('{"a":1}');
  });

  test("hands a text body and its headers to Node as they are", () => {
    const parts = make("hello", { status: 404, headers: { "x-a": "1" } }).toNodeParts();
    expect(parts).toEqual({ status: 404, headers: { "x-a": "1" }, body: "hello" });
  });

  test("a Headers given reaches Node as a record of its own, which setting a header on the response leaves alone", () => {
    const given = new Headers({ "x-a": "1" });
    expect(make("x", { headers: given }).toNodeParts()?.headers).toEqual({ "x-a": "1" });
    const changed = make("x", { headers: given });
    changed.headers.set("x-b", "2");
    expect(changed.toNodeParts()?.headers).toEqual({ "x-a": "1", "x-b": "2" });
    expect([...given]).toEqual([["x-a", "1"]]);
    expect(make("x", { headers: given }).toNodeParts()?.headers).toEqual({ "x-a": "1" });
  });

  test("headers set after construction reach Node", () => {
    const response = make("x", { headers: { "x-a": "1" } });
    response.headers.set("deprecation", "@1");
    expect(response.toNodeParts()?.headers).toEqual({ "x-a": "1", deprecation: "@1" });
  });

  test("headers read, set and deleted follow the Fetch API: names in any case, values trimmed", () => {
    const response = make("x", { headers: { "x-a": "1", "x-b": "2" } });
    response.headers.set("X-C", " 3\t");
    response.headers.delete("X-B");
    expect(response.headers.get("x-c")).toBe("3");
    expect(response.headers.has("x-b")).toBe(false);
    expect(response.toNodeParts()?.headers).toEqual({ "x-a": "1", "x-c": "3" });
  });

  test("headers set on answers made from one frozen record (the core's) are each answer's own, and read, listed and deleted as any", () => {
    const shared = Object.freeze({ "content-type": "application/json", etag: '"a"' });
    const first = make("x", { headers: shared });
    const second = make("x", { headers: shared });
    first.headers.set("X-Request-Id", " one\t");
    first.headers.set("etag", '"b"');
    second.headers.set("x-request-id", "two");
    expect(first.headers.get("x-request-id")).toBe("one");
    expect(first.headers.has("ETag")).toBe(true);
    expect(first.toNodeParts()?.headers).toEqual({ "content-type": "application/json", etag: '"b"', "x-request-id": "one" });
    expect(second.toNodeParts()?.headers).toEqual({ "content-type": "application/json", etag: '"a"', "x-request-id": "two" });
    expect(make("x", { headers: shared }).toNodeParts()?.headers).toEqual(shared);
    second.headers.delete("x-request-id");
    second.headers.delete("etag");
    expect([...second.headers]).toEqual([["content-type", "application/json"]]);
    const listed = make("x", { headers: shared });
    listed.headers.set("x-request-id", "three");
    expect([...listed.headers]).toEqual([["content-type", "application/json"], ["etag", '"a"'], ["x-request-id", "three"]]);
    expect(shared).toEqual({ "content-type": "application/json", etag: '"a"' });
  });

  test("a header value holding a line break is refused with a TypeError, as Headers refuses it", () => {
    const response = make("x", { headers: { "x-a": "1" } });
    expect(() => response.headers.set("x-b", "1\r\nx-c: 2")).toThrow(TypeError);
  });

  test("a header value holding a character past U+00FF is refused with a TypeError, as Headers refuses it", () => {
    const response = make("x", { headers: { "x-a": "1" } });
    expect(() => response.headers.set("x-b", "\u0100")).toThrow(TypeError);
  });

  test("appended values and Set-Cookie headers reach Node as a real Headers holds them", () => {
    const response = make("x", { headers: { "x-a": "1" } });
    response.headers.append("x-a", "2");
    response.headers.append("set-cookie", "a=1");
    response.headers.append("set-cookie", "b=2");
    expect(response.toNodeParts()?.headers).toEqual({ "x-a": "1, 2", "set-cookie": ["a=1", "b=2"] });
  });

  test("a body already read through the Fetch API is no longer handed over as text", async () => {
    const response = make("once");
    await response.text();
    expect(response.toNodeParts()).toBeUndefined();
  });

  test("a body that is not text is left to a real Response", async () => {
    const response = make(new Uint8Array([104, 105]));
    expect(response.toNodeParts()).toBeUndefined();
    expect(await response.text()).toBe("hi");
  });
});
