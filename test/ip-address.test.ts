import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { canonicalAddress, MAX_ADDRESS_LENGTH } from "../src/plugs/rate-limit/_ip-address.ts";

const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const groups = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 });

/** One group as some sender may write it: leading zeros up to four digits, either case. */
const spelledGroup = (group: number) =>
  fc.tuple(fc.nat(4), fc.boolean()).map(([pad, upper]) => {
    const hex = group.toString(16).padStart(Math.min(4, group.toString(16).length + pad), "0");
    return upper ? hex.toUpperCase() : hex;
  });

/** Eight groups in any RFC 4291 text form: each group spelled freely, any run of zero groups as `::`, the last two as IPv4 or not. */
const spelledIpv6 = (values: readonly number[]) =>
  fc.tuple(fc.tuple(...values.map(spelledGroup)), fc.nat(8), fc.nat(8), fc.boolean()).map(([spelled, a, b, dotted]) => {
    const parts: string[] = dotted ? [...spelled.slice(0, 6), `${values[6]! >> 8}.${values[6]! & 255}.${values[7]! >> 8}.${values[7]! & 255}`] : [...spelled];
    const [from, to] = [Math.min(a, b), Math.max(a, b)];
    const end = Math.min(to, parts.length);
    const zeros = from < end && values.slice(from, dotted && end === parts.length ? 8 : end).every((value) => value === 0);
    return zeros ? `${parts.slice(0, from).join(":")}::${parts.slice(end).join(":")}` : parts.join(":");
  });

/** RFC 5952's form as the WHATWG URL parser writes it (an IPv4-mapped address in hex). */
const urlForm = (values: readonly number[]) => new URL(`http://[${values.map((value) => value.toString(16)).join(":")}]/`).hostname.slice(1, -1);

const isIpv4InIpv6 = (values: readonly number[]) =>
  values.slice(0, 5).every((value) => value === 0) && (values[5] === 0xffff || (values[5] === 0 && (values[6] !== 0 || values[7]! > 1)));

describe("canonicalAddress: IPv4", () => {
  test("a dotted-decimal address is its own canonical form", () => {
    fc.assert(fc.property(octets, (four) => expect(canonicalAddress(four.join("."))).toBe(four.join("."))));
  });

  test("leading zeros (192.000.002.001), one integer (3221225985) or fewer parts are not addresses", () => {
    fc.assert(fc.property(octets, fc.nat(3), (four, index) => {
      const padded = four.map((octet, i) => (i === index ? `0${octet}` : String(octet))).join(".");
      const integer = String(((four[0] << 24) >>> 0) + (four[1] << 16) + (four[2] << 8) + four[3]);
      expect([canonicalAddress(padded), canonicalAddress(integer), canonicalAddress(four.slice(0, 3).join("."))]).toEqual([undefined, undefined, undefined]);
    }));
    expect(canonicalAddress("192.000.002.001")).toBeUndefined();
    expect(canonicalAddress("3221225985")).toBeUndefined();
  });

  test("IPv4-mapped and -compatible IPv6 forms, in any spelling, are the IPv4 address", () => {
    fc.assert(fc.property(octets, fc.boolean(), (four, mapped) => {
      const values = [0, 0, 0, 0, 0, mapped ? 0xffff : 0, four[0] * 256 + four[1], four[2] * 256 + four[3]];
      fc.pre(isIpv4InIpv6(values));
      fc.assert(fc.property(spelledIpv6(values), (text) => expect(canonicalAddress(text)).toBe(four.join("."))), { numRuns: 20 });
    }), { numRuns: 50 });
    for (const text of ["::ffff:c000:201", "0:0:0:0:0:ffff:192.0.2.1", "::FFFF:192.0.2.1", "::192.0.2.1"]) expect(canonicalAddress(text)).toBe("192.0.2.1");
  });
});

describe("canonicalAddress: IPv6", () => {
  test("every spelling of an address has one canonical form, RFC 5952's", () => {
    fc.assert(fc.property(groups.chain((values) => fc.tuple(fc.constant(values), spelledIpv6(values))), ([values, text]) => {
      fc.pre(!isIpv4InIpv6(values));
      expect(canonicalAddress(text)).toBe(urlForm(values));
    }), { numRuns: 2000 });
  });

  test("the evasions of one /64 are one address or none: an embedded IPv4 tail, zeros spelled out, a zone, a trailing dot", () => {
    expect(canonicalAddress("2001:db8:1:2::1.2.3.4")).toBe("2001:db8:1:2::102:304");
    expect(canonicalAddress("2001:db8:1:2:0:0:9.9.9.9")).toBe("2001:db8:1:2::909:909");
    for (const text of ["2001:db8:1:2::1%eth0", "2001:db8:1:2::1%25eth0", "2001:db8:1:2::1.", "[2001:db8::1]", "2001:db8::1 ", "2001:db8::1:4711:"]) {
      expect(canonicalAddress(text)).toBeUndefined();
    }
  });

  test("a zone or a trailing dot after any address makes it none", () => {
    fc.assert(fc.property(groups.chain(spelledIpv6), fc.constantFrom("%eth0", "%25eth0", "%1", ".", "%"), (text, suffix) => {
      expect(canonicalAddress(`${text}${suffix}`)).toBeUndefined();
    }));
    fc.assert(fc.property(octets, (four) => expect(canonicalAddress(`${four.join(".")}.`)).toBeUndefined()));
  });
});

describe("canonicalAddress: anything else", () => {
  test("any text gives no address or a canonical one, at most 45 characters, that is its own canonical form", () => {
    const noisy = fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF:.%[]x ") , maxLength: 50 });
    fc.assert(fc.property(fc.oneof(noisy, fc.string()), (text) => {
      const address = canonicalAddress(text);
      if (address === undefined) return;
      expect(address.length).toBeLessThanOrEqual(MAX_ADDRESS_LENGTH);
      expect(canonicalAddress(address)).toBe(address);
    }), { numRuns: 5000 });
  });

  test("text longer than the longest address is refused before it is read", () => {
    fc.assert(fc.property(fc.string({ minLength: MAX_ADDRESS_LENGTH + 1, maxLength: 9000 }), (text) => expect(canonicalAddress(text)).toBeUndefined()));
    expect(canonicalAddress("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255")).toBe("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
    expect(canonicalAddress(`1-${"x".repeat(8192)}`)).toBeUndefined();
  });
});
