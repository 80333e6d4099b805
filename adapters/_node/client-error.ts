/**
 * @module
 * Private: what `serveNode` answers when Node's HTTP parser refuses a request before the app sees
 * it (a lowercase or unknown method, a character a request target or header may not hold, both
 * `Transfer-Encoding` and `Content-Length`, headers past the size limit, a request that did not
 * arrive in time). Node's own answers are bare (`400 Bad Request` and no body); these carry the
 * error object every other answer carries, and close the connection, as Node's do. Deno's
 * `node:http` emits the same event, with less precise codes.
 */
import { Buffer } from "node:buffer";
import type { Duplex } from "node:stream";
import type { ErrorCode } from "../../src/errors.ts";
import { errorResponse } from "../../src/errors.ts";

/** The error Node's `clientError` event carries: `code` names the parser's complaint. */
type ClientError = Error & { readonly code?: string };

/** Why the parser refused a request, in words, by Node's code; others get the general words. */
const REASONS: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD: "its method is not one the server knows (methods are case-sensitive: GET, not get)",
  HPE_INVALID_URL: "its request target holds a character that must be percent-encoded",
  HPE_INVALID_HEADER_TOKEN: "a header holds a character not allowed there",
  HPE_INVALID_TRANSFER_ENCODING: "it has both Transfer-Encoding and Content-Length, or a Transfer-Encoding that does not end in chunked",
  HPE_UNEXPECTED_CONTENT_LENGTH: "it has both Transfer-Encoding and Content-Length",
};

/** The answer for a parser error: the error code and the words after `Cannot read the request: `. */
function refusal(code: string | undefined): { readonly code: ErrorCode; readonly reason: string } {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { code: "headers_too_large", reason: "its request line and headers are larger than the server accepts" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { code: "payload_too_large", reason: "its chunk extensions are larger than the server accepts" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { code: "request_timeout", reason: "it did not arrive in time" };
    default:
      return { code: "invalid_request", reason: REASONS[code ?? ""] ?? "it is not well-formed HTTP/1.1" };
  }
}

/**
 * Answers a request Node's parser refused, on the connection's socket, with the error object and
 * `Connection: close`; a connection the client has left, or one whose answer to an earlier
 * request has begun, is only closed, as Node does.
 */
export function answerClientError(error: ClientError, socket: Duplex): void {
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || answering?.headersSent === true) {
    socket.destroy();
    return;
  }
  const { code, reason } = refusal(error.code);
  const response = errorResponse(code, `Cannot read the request: ${reason}`, { connection: "close" });
  void response.text().then((body) => {
    const head = [`HTTP/1.1 ${response.status} ${STATUS_TEXT[response.status]}`, `content-length: ${Buffer.byteLength(body)}`];
    // The error object's own Content-Length is the one written above: two would make clients refuse the answer.
    response.headers.forEach((value, name) => name === "content-length" || head.push(`${name}: ${value}`));
    // Closed once written, whether or not the client closes its side.
    socket.end(`${head.join("\r\n")}\r\n\r\n${body}`, () => socket.destroy());
  });
}

/** The reason phrases of the statuses answered here. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Content Too Large",
  431: "Request Header Fields Too Large",
};
