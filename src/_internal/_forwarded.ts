/**
 * @module
 * Private to `public-origin.ts`: the scheme and host a trusted proxy forwarded, read from
 * `Forwarded` (RFC 7239), else from `X-Forwarded-Proto` and `X-Forwarded-Host`.
 */
import { isHostValue } from "./_host.ts";

/** The origin a trusted proxy forwarded, when its scheme and host are well-formed; `scheme` is the request's own. */
export function forwardedOrigin(headers: Headers, scheme: string): string | undefined {
  const forwarded = headers.get("forwarded");
  // Only the first element: the one the proxy nearest the client wrote.
  const element = forwarded?.split(",")[0] ?? "";
  const pairs = new Map(element.split(";").map((pair) => {
    const equals = pair.indexOf("=");
    return [pair.slice(0, equals).trim().toLowerCase(), pair.slice(equals + 1).trim().replace(/^"(.*)"$/, "$1")];
  }));
  const proto = (forwarded === null ? headers.get("x-forwarded-proto")?.split(",")[0]?.trim() : pairs.get("proto"))?.toLowerCase() ?? scheme;
  const host = forwarded === null ? headers.get("x-forwarded-host")?.split(",")[0]?.trim() : pairs.get("host");
  if (proto !== "http" && proto !== "https") return undefined;
  const authority = host ?? headers.get("host");
  return authority === null || !isHostValue(authority) ? undefined : `${proto}://${authority}`;
}
