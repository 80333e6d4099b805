import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { parseTraceparent, parseTracestate, readTraceContext } from "../src/tracing/mod.ts";

const hex = (length: number) => fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length });
const traceId = hex(32).filter((id) => !/^0+$/.test(id));
const parentId = hex(16).filter((id) => !/^0+$/.test(id));
const flags = hex(2);
const laterVersion = hex(2).filter((version) => version !== "00" && version !== "ff");

describe("traceparent, as the W3C recommendation reads it", () => {
  test("any valid version-00 value is read back unchanged", () => {
    fc.assert(fc.property(traceId, parentId, flags, (trace, parent, bits) => {
      expect(parseTraceparent(`00-${trace}-${parent}-${bits}`)).toEqual({ traceId: trace, parentId: parent, flags: Number.parseInt(bits, 16) });
    }));
  });

  test("a later version is read by its first 55 characters when `-` or nothing follows, keeping only the sampled flag", () => {
    fc.assert(fc.property(laterVersion, traceId, parentId, flags, fc.option(fc.string({ maxLength: 20 })), (version, trace, parent, bits, rest) => {
      const value = `${version}-${trace}-${parent}-${bits}${rest === null ? "" : `-${rest}`}`;
      expect(parseTraceparent(value)).toEqual({ traceId: trace, parentId: parent, flags: Number.parseInt(bits, 16) & 1 });
    }));
  });

  test("a later version followed by anything but `-` is malformed", () => {
    expect(parseTraceparent(`01-${"a".repeat(32)}-${"b".repeat(16)}-01x`)).toBeUndefined();
  });

  test("version 00 with anything after the flags is malformed", () => {
    fc.assert(fc.property(traceId, parentId, flags, fc.string({ minLength: 1, maxLength: 20 }), (trace, parent, bits, rest) => {
      expect(parseTraceparent(`00-${trace}-${parent}-${bits}${rest}`)).toBeUndefined();
    }));
  });

  test("version ff, uppercase hex, all-zero ids and wrong separators are malformed", () => {
    const valid = `00-${"4bf92f3577b34da6a3ce929d0e0e4736"}-${"00f067aa0ba902b7"}-01`;
    expect(parseTraceparent(valid)).toBeDefined();
    for (const value of [
      valid.replace("00-", "ff-"),
      valid.toUpperCase(),
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01`,
      valid.replaceAll("-", "_"),
      valid.slice(0, 54),
      `${valid}, ${valid}`, // two traceparent fields, as Headers joins them
    ]) expect(parseTraceparent(value)).toBeUndefined();
  });

  test("no string at all makes the parser throw, and what it accepts is well-formed", () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (value) => {
      const parsed = parseTraceparent(value);
      if (parsed !== undefined) {
        expect(parsed.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(parsed.parentId).toMatch(/^[0-9a-f]{16}$/);
      }
    }));
  });
});

describe("tracestate", () => {
  const key = fc.stringMatching(/^[a-z][a-z0-9_\-*/]{0,20}$/);
  const value = fc.stringMatching(/^[!-+\--<>-~]{1,30}$/);

  test("any list of valid members with distinct keys is kept, empty members and spaces dropped", () => {
    fc.assert(fc.property(fc.uniqueArray(fc.tuple(key, value), { minLength: 1, maxLength: 32, selector: ([k]) => k }), (members) => {
      const listed = members.map(([k, v]) => `${k}=${v}`);
      expect(parseTracestate(` ${listed.join(" ,, ")} `)).toBe(listed.join(","));
    }));
  });

  test("a malformed member, a repeated key or more than 32 members makes the whole value ignored", () => {
    expect(parseTracestate("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")).toBe("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
    expect(parseTracestate("tenant@vendor=1")).toBe("tenant@vendor=1");
    for (const malformed of ["congo", "Congo=1", "congo=1,congo=2", "congo=", "congo=a=b", Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(",")]) {
      expect(parseTracestate(malformed)).toBeUndefined();
    }
  });
});

describe("a request's trace context", () => {
  const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  test("a valid traceparent is read with its tracestate", () => {
    expect(readTraceContext(new Headers({ traceparent, tracestate: "rojo=00f067aa0ba902b7" }))).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      parentId: "00f067aa0ba902b7",
      flags: 1,
      tracestate: "rojo=00f067aa0ba902b7",
    });
  });

  test("a malformed tracestate is dropped and the traceparent kept", () => {
    expect(readTraceContext(new Headers({ traceparent, tracestate: "not a list" }))?.tracestate).toBeUndefined();
    expect(readTraceContext(new Headers({ traceparent, tracestate: "not a list" }))?.traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
  });

  test("a malformed traceparent means no trace context, whatever the tracestate", () => {
    expect(readTraceContext(new Headers({ traceparent: "garbage", tracestate: "rojo=1" }))).toBeUndefined();
    expect(readTraceContext(new Headers())).toBeUndefined();
  });
});
