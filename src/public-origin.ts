/**
 * @module
 * Which origin the service writes into the absolute URLs of `Location` and `Link`: a configured
 * public URL, else what a trusted proxy forwarded, else the request's own validated `Host`.
 */
import type { TrustedProxyHeader } from "./_internal/_forwarded.ts";
import { checkedTrustProxy, forwardedOrigin } from "./_internal/_forwarded.ts";
import { _lastSoundHostCheck } from "./_internal/_host.ts";

/** Where the service's absolute URLs point. */
export interface PublicOriginOptions {
  /**
   * The URL clients reach the service at, without a trailing slash and without the base path
   * (`https://api.example.com`, or `https://example.com/pets-api` when a proxy mounts it under a
   * prefix). When set, it is used for every absolute URL and no request header is trusted.
   */
  readonly publicUrl?: string;
  /**
   * The one header family the proxy in front sets whatever clients send, `"x-forwarded"` (`X-Forwarded-For`,
   * `-Proto`, `-Host`) or `"forwarded"` (RFC 7239): the origin and a rate limit's client address are read from it alone.
   */
  readonly trustProxy?: TrustedProxyHeader | false;
}

/** Finds the origin for one request, from its headers and its URL's origin (`""` when its URL is only a path). */
export type OriginResolver = (headers: Headers, urlOrigin: string) => string;

/**
 * Checks a public URL and builds the resolver. Without one, the request URL's origin is used when
 * its host is well-formed, else `""` (Bun's URL for a request without `Host`), so the URLs
 * written are relative references rather than anything a client made up.
 */
export function createOriginResolver(options: PublicOriginOptions): OriginResolver {
  const { publicUrl } = options;
  const trustProxy = checkedTrustProxy(options.trustProxy);
  if (publicUrl !== undefined) {
    const problem = publicUrlProblem(publicUrl);
    if (problem !== undefined) throw new RangeError(`Cannot create app: publicUrl ${problem}, got "${publicUrl}"`);
    return () => publicUrl;
  }
  const isHostValue = _lastSoundHostCheck();
  return (headers, urlOrigin) => {
    const scheme = urlOrigin.startsWith("https:") ? "https" : "http";
    const forwarded = trustProxy === false ? undefined : forwardedOrigin(headers, trustProxy, scheme);
    if (forwarded !== undefined) return forwarded;
    return isHostValue(urlOrigin.slice(scheme.length + 3)) ? urlOrigin : "";
  };
}

/** What is wrong with a public URL, or `undefined` when it is an http(s) URL with at most a path. */
export function publicUrlProblem(url: string): string | undefined {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) return "must be an http or https URL";
  if (parsed.username !== "" || parsed.password !== "" || parsed.search !== "" || parsed.hash !== "") {
    return "must hold no user, query or fragment";
  }
  if (url.endsWith("/")) return 'must not end with "/"';
  return `${parsed.origin}${parsed.pathname === "/" ? "" : parsed.pathname}` === url ? undefined : "must be written in its normal form";
}
