/**
 * @module
 * Private: what a trusted proxy forwarded, read from the one header family the operator named and
 * never from the other. A proxy sets (and so overwrites) the headers it is configured to set and
 * passes every other header through from the client: trusting both families, or one before the
 * other, would let a client write the one its proxy leaves alone. Only the first element is read:
 * the one the proxy nearest the client wrote, when the proxy sets the header rather than appending.
 */
import { isHostValue } from "./_host.ts";

/**
 * The header family a trusted proxy sets: RFC 7239's `Forwarded` (`for=`, `proto=`, `host=`), or
 * `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host`.
 */
export type TrustedProxyHeader = "forwarded" | "x-forwarded";

/** The `trustProxy` option, checked: the header family it names, or `false`; `true` or any other value is refused. */
export function checkedTrustProxy(value: unknown): TrustedProxyHeader | false {
  if (value === undefined || value === false) return false;
  if (value === "forwarded" || value === "x-forwarded") return value;
  const got = typeof value === "string" ? `"${value}"` : String(value);
  throw new RangeError(`Cannot create app: trustProxy must name the one header family the proxy sets, "x-forwarded" or "forwarded", or be false, got ${got}`);
}

/** The client address, scheme and host of the first forwarded element, as sent. */
interface ForwardedFields {
  readonly for: string | undefined;
  readonly proto: string | undefined;
  readonly host: string | undefined;
}

function forwardedFields(headers: Headers, trusted: TrustedProxyHeader): ForwardedFields {
  if (trusted === "x-forwarded") {
    const first = (name: string) => headers.get(name)?.split(",")[0]?.trim() || undefined;
    return { for: first("x-forwarded-for"), proto: first("x-forwarded-proto"), host: first("x-forwarded-host") };
  }
  const pairs = new Map((headers.get("forwarded")?.split(",")[0] ?? "").split(";").map((pair) => {
    const equals = pair.indexOf("=");
    return [pair.slice(0, equals).trim().toLowerCase(), unquote(pair.slice(equals + 1).trim())];
  }));
  return { for: pairs.get("for") || undefined, proto: pairs.get("proto") || undefined, host: pairs.get("host") || undefined };
}

/** The origin a trusted proxy forwarded, when its scheme and host are well-formed; `scheme` is the request's own. */
export function forwardedOrigin(headers: Headers, trusted: TrustedProxyHeader, scheme: string): string | undefined {
  const fields = forwardedFields(headers, trusted);
  const proto = fields.proto?.toLowerCase() ?? scheme;
  if (proto !== "http" && proto !== "https") return undefined;
  const authority = fields.host ?? headers.get("host");
  return authority === null || !isHostValue(authority) ? undefined : `${proto}://${authority}`;
}

/** Reads the client address a proxy trusted for `trusted` forwarded, without a port, as sent; with `false`, none. */
export function forwardedForReader(trusted: TrustedProxyHeader | false): (headers: Headers) => string | undefined {
  if (trusted === false) return () => undefined;
  return (headers) => {
    const node = forwardedFields(headers, trusted).for;
    return node === undefined ? undefined : withoutPort(node);
  };
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/** `192.0.2.1:4711` and `[2001:db8::1]:4711` without their ports; a bare IPv6 address stays whole. */
function withoutPort(node: string): string {
  if (node.startsWith("[")) {
    const close = node.indexOf("]");
    return close === -1 ? node : node.slice(1, close);
  }
  const colon = node.indexOf(":");
  return colon !== -1 && node.indexOf(":", colon + 1) === -1 ? node.slice(0, colon) : node;
}
