/**
 * @module
 * Bearer API keys (RFC 6750): what the app answers once the key ring (`api-keys/mod.ts`) has found
 * the key a request carries. Without a known key, 401 with a `WWW-Authenticate` challenge; with a key
 * past its expiry, 401 saying so; with a key of scope `read`, 403 on an operation that is not a read.
 * No answer says which keys exist.
 */
import type { KeyCheck, KeyScope } from "./api-keys/mod.ts";
import { errorResponse } from "./errors.ts";

/** The methods a key of scope `read` may use: the safe methods (RFC 9110 §9.2.1) the service answers. */
export const READ_METHODS: readonly string[] = Object.freeze(["GET", "HEAD", "OPTIONS"]);

/** Whether a key of `scope` may use an operation of `method`. */
export function mayUse(scope: KeyScope, method: string): boolean {
  return scope === "write" || READ_METHODS.includes(method);
}

/** The 401 for a request without a valid key, with its `WWW-Authenticate` challenge and the headers every answer to the request carries. */
export function unauthorized(check: Exclude<KeyCheck, { outcome: "valid" }>, realm: string, headers: Readonly<Record<string, string>>): Response {
  // RFC 6750 §3: name the error only when a bearer token was sent; its description for an expired one (§3's example).
  const challenge = check.outcome === "missing"
    ? `Bearer realm="${realm}"`
    : `Bearer realm="${realm}", error="invalid_token"${check.outcome === "expired" ? ', error_description="The access token expired"' : ""}`;
  const message = check.outcome === "missing"
    ? "Missing API key: send it as Authorization: Bearer <key>"
    : check.outcome === "expired"
    ? `Expired API key: this key expired at ${new Date(check.key.expiresAt!).toISOString()}; use the key that replaces it`
    : "Invalid API key: the bearer token is not a known key";
  return errorResponse("unauthorized", message, { ...headers, "www-authenticate": challenge });
}

/** The 403 for a key whose scope does not allow the operation (RFC 6750 §3.1 `insufficient_scope`), naming the scope it needs. */
export function insufficientScope(method: string, path: string, realm: string, headers: Readonly<Record<string, string>>): Response {
  const challenge = `Bearer realm="${realm}", error="insufficient_scope", scope="write"`;
  const message = `Cannot ${method} ${path}: this API key may only read (scope read: ${READ_METHODS.join(", ")}); use a key of scope write`;
  return errorResponse("insufficient_scope", message, { ...headers, "www-authenticate": challenge });
}
