/**
 * @module
 * Reads a JSON request body as text: checks its media type and encoding, and stops reading as soon
 * as it grows past the size limit, so an oversized upload is never buffered.
 */
import type { Refusable } from "./validation.ts";
import type { Refusal } from "./errors.ts";
import { refusal } from "./errors.ts";

// A UTF-8 byte order mark before the JSON text is dropped by the decoder (`ignoreBOM: false`):
// RFC 8259 §8.1 lets a parser ignore it, and every runtime then answers the same (docs/decisions.md).
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

// A 415 says which media types the method takes (RFC 9110 §15.5.16), in the field of that method:
// `Accept-Post` (W3C LDP, registered with IANA) or `Accept-Patch` (RFC 5789 §3.1); other methods have none.
const ACCEPT_FIELDS: Readonly<Record<string, string>> = Object.freeze({ POST: "accept-post", PATCH: "accept-patch" });

/**
 * Reads the body of a request that must carry `application/json` of at most `maxBytes` bytes: the
 * text, or the refusal (400, 413 or 415) that refuses it.
 */
export function readJsonBody(request: Request, maxBytes: number, action: string): Promise<Refusable<string, Refusal>> {
  const declaredLength = request.headers.get("content-length");
  const refused = checkHeaders(request, declaredLength, maxBytes, action);
  if (refused !== undefined) return Promise.resolve({ ok: false, refusal: refused });
  // Not async: the body's own promise is the one wait, its bytes decoded in its continuation
  // (measured in bench/RESULTS.md, issue 53, fifth round). A declared length is already checked
  // against the limit, and the runtime stops the body at that length, so it is read in one go; an
  // undeclared one is streamed up to the limit.
  const bytes = declaredLength === null ? readAtMost(request.body, maxBytes) : readWhole(request);
  return bytes.then((bytes) => decoded(bytes, maxBytes, action), () => ({ ok: false, refusal: refusal("invalid_body", `${action}: the body could not be read to its end`) }));
}

/** The whole body's bytes; a body that cannot be read (already used) rejects, as `arrayBuffer` does. */
function readWhole(request: Request): Promise<ArrayBuffer> {
  try {
    return request.arrayBuffer();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The body's text, or its refusal: over the limit (`undefined` bytes: the stream passed it), or not UTF-8. */
function decoded(bytes: ArrayBuffer | Uint8Array | undefined, maxBytes: number, action: string): Refusable<string, Refusal> {
  if (bytes === undefined || bytes.byteLength > maxBytes) return { ok: false, refusal: tooLarge(maxBytes, action) };
  try {
    return { ok: true, value: decoder.decode(bytes) };
  } catch {
    return { ok: false, refusal: refusal("invalid_body", `${action}: body is not valid UTF-8`) };
  }
}

function checkHeaders(request: Request, declaredLength: string | null, maxBytes: number, action: string): Refusal | undefined {
  const { headers } = request;
  const contentType = headers.get("content-type");
  if (!isJsonMediaType(contentType)) {
    const got = contentType === null ? "no Content-Type" : `Content-Type ${JSON.stringify(contentType)}`;
    const field = ACCEPT_FIELDS[request.method];
    return refusal("unsupported_media_type", `${action}: body must be application/json, got ${got}`, field === undefined ? undefined : { [field]: "application/json" });
  }
  const encoding = headers.get("content-encoding");
  if (encoding !== null && encoding.trim().toLowerCase() !== "identity") {
    return refusal("unsupported_media_type", `${action}: Content-Encoding ${JSON.stringify(encoding)} is not supported`, {
      "accept-encoding": "identity",
    });
  }
  // Bun and Deno refuse any other transfer coding before the service runs; Node passes
  // `identity, chunked` on, so the service refuses it too, and every runtime answers 400.
  const transferEncoding = headers.get("transfer-encoding");
  if (transferEncoding !== null && transferEncoding.trim().toLowerCase() !== "chunked") {
    return refusal("invalid_header", `${action}: Transfer-Encoding ${JSON.stringify(transferEncoding)} is not supported; send chunked or Content-Length`);
  }
  if (Number(declaredLength ?? 0) > maxBytes) return tooLarge(maxBytes, action);
  return undefined;
}

/** Whether a Content-Type names JSON: `application/json`, any case, with at most a UTF-8 charset. */
function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const [type = "", ...parameters] = contentType.split(";").map((part) => part.trim().toLowerCase());
  if (type !== "application/json") return false;
  return parameters.every((parameter) => !parameter.startsWith("charset=") || /^charset="?utf-8"?$/.test(parameter));
}

function tooLarge(maxBytes: number, action: string): Refusal {
  return refusal("payload_too_large", `${action}: body must be at most ${maxBytes} bytes`, { connection: "close" });
}

/** All the bytes of a body stream, or `undefined` (and the stream cancelled) once it passes the limit. */
async function readAtMost(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
