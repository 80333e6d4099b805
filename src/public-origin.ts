/**
 * @module
 * Which origin the service writes into the absolute URLs of `Location` and `Link`: a configured
 * public URL, else what a trusted proxy forwarded, else the request's own validated `Host`.
 */
import { forwardedOrigin } from "./_internal/_forwarded.ts";
import { isHostValue } from "./_internal/_host.ts";

/** Where the service's absolute URLs point. */
export interface PublicOriginOptions {
  /**
   * The URL clients reach the service at, without a trailing slash and without the base path
   * (`https://api.example.com`, or `https://example.com/pets-api` when a proxy mounts it under a
   * prefix). When set, it is used for every absolute URL and no request header is trusted.
   */
  readonly publicUrl?: string;
  /**
   * Whether to take the scheme and host from `Forwarded`, else `X-Forwarded-Proto` and
   * `X-Forwarded-Host`: only behind a proxy that sets them and drops what clients sent.
   */
  readonly trustProxy?: boolean;
}

/** Finds the origin for one request, from its headers and its URL's origin (`""` when its URL is only a path). */
export type OriginResolver = (headers: Headers, urlOrigin: string) => string;

/**
 * Checks a public URL and builds the resolver. Without one, the request URL's origin is used when
 * its host is well-formed, else `""` (Bun's URL for a request without `Host`), so the URLs
 * written are relative references rather than anything a client made up.
 */
export function createOriginResolver(options: PublicOriginOptions): OriginResolver {
  const { publicUrl, trustProxy = false } = options;
  if (publicUrl !== undefined) {
    const problem = publicUrlProblem(publicUrl);
    if (problem !== undefined) throw new RangeError(`Cannot create app: publicUrl ${problem}, got "${publicUrl}"`);
    return () => publicUrl;
  }
  return (headers, urlOrigin) => {
    const scheme = urlOrigin.startsWith("https:") ? "https" : "http";
    const forwarded = trustProxy ? forwardedOrigin(headers, scheme) : undefined;
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
