/**
 * @module
 * Private: what a trusted proxy forwarded, read from the one header family the operator named and
 * never from the other. A proxy sets (and so overwrites) the headers it is configured to set and
 * passes every other header through from the client: trusting both families, or one before the
 * other, would let a client write the one its proxy leaves alone. Only the first element is read:
 * the one the proxy nearest the client wrote, when the proxy sets the header rather than appending.
 *
 * A proxy writes what the client sent into that element too (nginx's `host=$host` takes the client's
 * `Host`), so a `Forwarded` element is read as RFC 7239 §4 writes it: pairs split at `;` outside
 * quoted strings, and an element naming a parameter twice, or with a pair that is not `name=value`,
 * is malformed. Nothing of a malformed element is trusted: it forwards no origin, and as its
 * address the empty string, which no address is (the rate limit counts it as one `unknown` client,
 * never as an address named in it).
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

/** The fields of the first forwarded element; `undefined` when it is a malformed `Forwarded` element. */
function forwardedFields(headers: Headers, trusted: TrustedProxyHeader): ForwardedFields | undefined {
  if (trusted === "x-forwarded") {
    const first = (name: string) => headers.get(name)?.split(",")[0]?.trim() || undefined;
    return { for: first("x-forwarded-for"), proto: first("x-forwarded-proto"), host: first("x-forwarded-host") };
  }
  const pairs = firstElement(headers.get("forwarded") ?? "");
  return pairs === undefined ? undefined : { for: pairs.get("for"), proto: pairs.get("proto"), host: pairs.get("host") };
}

// One `name=value` pair of a Forwarded element at `lastIndex`: a token, and a token or quoted string
// (an unquoted value may hold `:` and `[`, as `for=$remote_addr` writes an IPv6 address).
const PAIR = /[\t ]*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)=("(?:[^"\\]|\\.)*"|[^\t ";,]+)[\t ]*/y;

/** The pairs of the first element of a `Forwarded` value, names in lower case, values unquoted; `undefined` when it is malformed. */
function firstElement(value: string): Map<string, string> | undefined {
  const pairs = new Map<string, string>();
  let at = 0;
  while (at < value.length && value[at] !== ",") {
    if (value[at] === ";") {
      at++;
      continue;
    }
    PAIR.lastIndex = at;
    const match = PAIR.exec(value);
    if (match === null) return undefined;
    const name = match[1]!.toLowerCase();
    // A second `for=` would let what a proxy copies from the client (`Host`) name the address.
    if (pairs.has(name)) return undefined;
    pairs.set(name, unquote(match[2]!));
    at = PAIR.lastIndex;
    if (at < value.length && value[at] !== ";" && value[at] !== ",") return undefined;
  }
  return pairs;
}

/** The origin a trusted proxy forwarded, when its scheme and host are well-formed; `scheme` is the request's own. */
export function forwardedOrigin(headers: Headers, trusted: TrustedProxyHeader, scheme: string): string | undefined {
  const fields = forwardedFields(headers, trusted);
  if (fields === undefined) return undefined;
  const proto = fields.proto?.toLowerCase() ?? scheme;
  if (proto !== "http" && proto !== "https") return undefined;
  const authority = fields.host ?? headers.get("host");
  return authority === null || !isHostValue(authority) ? undefined : `${proto}://${authority}`;
}

/**
 * Reads the client address a proxy trusted for `trusted` forwarded, without a port, as sent; with
 * `false`, none; from a malformed element, `""`.
 */
export function forwardedForReader(trusted: TrustedProxyHeader | false): (headers: Headers) => string | undefined {
  if (trusted === false) return () => undefined;
  return (headers) => {
    const fields = forwardedFields(headers, trusted);
    if (fields === undefined) return "";
    return fields.for === undefined ? undefined : withoutPort(fields.for);
  };
}

/** A quoted string's content, its `\` escapes undone; any other value as it is. */
function unquote(value: string): string {
  return value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value;
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
