/**
 * @module
 * The closed set of error codes, the one function that renders the interface's error object, and
 * the one answer to an unexpected error, which every adapter reuses.
 */
import { jsonResponse } from "./_internal/_json-response.ts";

/** Every error code this service answers with, and the HTTP status each one carries. */
export const ERROR_STATUS = {
  invalid_body: 400,
  invalid_query: 400,
  invalid_path: 400,
  invalid_header: 400,
  invalid_request: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  headers_too_large: 431,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  not_implemented: 501,
  service_unavailable: 503,
} as const;

/** A machine-readable error code, as sent in the error object's `code`. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The interface's error object: exactly these three fields. */
export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly status: number;
}

/** A refusal as a value: what an error answer will say, for checks that run before an answer is made. */
export interface Refusal {
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A refusal with its code, message and any extra headers. */
export function refusal(code: ErrorCode, message: string, headers?: Readonly<Record<string, string>>): Refusal {
  return headers === undefined ? { code, message } : { code, message, headers };
}

/** Builds the error response for a code: the error object as JSON, with any extra headers. */
export function errorResponse(code: ErrorCode, message: string, headers?: Readonly<Record<string, string>>): Response {
  const status = ERROR_STATUS[code];
  const body: ErrorBody = { code, message, status };
  return jsonResponse(status, JSON.stringify(body), headers);
}

/** The answer to an unexpected error: a 500 error object that gives no details away. */
export function internalErrorResponse(headers?: Readonly<Record<string, string>>): Response {
  return errorResponse("internal_error", "An unexpected error occurred", headers);
}
