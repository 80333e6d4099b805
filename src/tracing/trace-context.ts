/**
 * @module
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): reading the `traceparent` and
 * `tracestate` a request arrives with. Pure functions of the header values; a malformed header is
 * ignored (the request starts a new trace), never an error, as the recommendation asks.
 *
 * ```ts
 * import { readTraceContext } from "./trace-context.ts";
 * const incoming = readTraceContext(new Headers({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }));
 * incoming?.traceId; // "4bf92f3577b34da6a3ce929d0e0e4736"
 * ```
 */

/** The caller's place in a trace, from a valid `traceparent`, with its `tracestate` when that is valid too. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** The caller's span: 16 lowercase hex digits, not all zero. */
  readonly parentId: string;
  /** The trace flags; bit 0 (`sampled`) says the caller may have recorded its span. */
  readonly flags: number;
  /** The `tracestate` list, its members joined by `,`; absent when missing or malformed. */
  readonly tracestate?: string;
}

/** The `sampled` bit of the trace flags. */
export const SAMPLED_FLAG = 0x01;

/** Version 00's length: `00-` 32 hex `-` 16 hex `-` 2 hex. */
const VERSION_00_LENGTH = 55;
const HEX = /^[0-9a-f]+$/;
const ALL_ZERO = /^0+$/;
const MAX_TRACESTATE_MEMBERS = 32;
// A simple key, or a multi-tenant one (`tenant@system`); a value of printable ASCII but `,` and `=`,
// not ending in a space (trace-context §3.3.1).
const TRACESTATE_MEMBER =
  /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** The trace context of a request's headers, or `undefined` when it has no valid `traceparent`. */
export function readTraceContext(headers: Headers): TraceContext | undefined {
  const parent = headers.get("traceparent");
  if (parent === null) return undefined;
  const context = parseTraceparent(parent);
  if (context === undefined) return undefined;
  const tracestate = parseTracestate(headers.get("tracestate") ?? "");
  return tracestate === undefined ? context : { ...context, tracestate };
}

/**
 * A `traceparent` value read as the recommendation says (§3.2, §4.3): version 00 exactly as
 * defined; a later version by its first 55 characters, which must be followed by `-` or nothing;
 * version `ff`, uppercase hex, or an all-zero id is malformed. `undefined` when malformed.
 */
export function parseTraceparent(value: string): Omit<TraceContext, "tracestate"> | undefined {
  if (value.length < VERSION_00_LENGTH) return undefined;
  const version = value.slice(0, 2);
  if (!HEX.test(version) || version === "ff") return undefined;
  if (version === "00" ? value.length !== VERSION_00_LENGTH : value.length > VERSION_00_LENGTH && value[VERSION_00_LENGTH] !== "-") return undefined;
  if (value[2] !== "-" || value[35] !== "-" || value[52] !== "-") return undefined;
  const traceId = value.slice(3, 35);
  const parentId = value.slice(36, 52);
  const flags = value.slice(53, 55);
  if (!HEX.test(traceId) || !HEX.test(parentId) || !HEX.test(flags)) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(parentId)) return undefined;
  // A later version's flags may mean more; only `sampled` is known to this version.
  const bits = Number.parseInt(flags, 16);
  return { traceId, parentId, flags: version === "00" ? bits : bits & SAMPLED_FLAG };
}

/**
 * A `tracestate` value's members joined by `,` (empty members and the spaces around members
 * dropped), or `undefined` when it is empty or malformed: a member that is no `key=value`, more than
 * 32 members, or a key twice (§3.3).
 */
export function parseTracestate(value: string): string | undefined {
  const members = value.split(",").map((member) => member.trim()).filter((member) => member !== "");
  if (members.length === 0 || members.length > MAX_TRACESTATE_MEMBERS) return undefined;
  const keys = new Set<string>();
  for (const member of members) {
    if (!TRACESTATE_MEMBER.test(member)) return undefined;
    const key = member.slice(0, member.indexOf("="));
    if (keys.has(key)) return undefined;
    keys.add(key);
  }
  return members.join(",");
}
