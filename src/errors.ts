/**
 * @module
 * The closed set of error codes and the one function that renders the interface's error object.
 */
import type { Reply } from "./reply.ts";
import { jsonReply } from "./reply.ts";

/** Every error code this service answers with, and the HTTP status each one carries. */
export const ERROR_STATUS = {
  invalid_body: 400,
  invalid_query: 400,
  invalid_path: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
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

/** Builds the error reply for a code: the error object as JSON, with any extra headers. */
export function errorReply(code: ErrorCode, message: string, headers?: Record<string, string>): Reply {
  const status = ERROR_STATUS[code];
  const body: ErrorBody = { code, message, status };
  return jsonReply(status, body, headers);
}
