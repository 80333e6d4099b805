/**
 * @module
 * Reads a JSON request body as text: checks its media type and encoding, and stops reading as soon
 * as it grows past the size limit, so an oversized upload is never buffered.
 */
import type { RequestLike } from "./request.ts";
import type { Reply } from "./reply.ts";
import { errorReply } from "./errors.ts";

/** The body text, or the error reply that refuses it. */
export type BodyText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reply: Reply };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Reads the body of a request that must carry `application/json` of at most `maxBytes` bytes. */
export async function readJsonBody(request: RequestLike, maxBytes: number, action: string): Promise<BodyText> {
  const declaredLength = request.headers.get("content-length");
  const refusal = checkHeaders(request, declaredLength, maxBytes, action);
  if (refusal !== undefined) return { ok: false, reply: refusal };
  let bytes: Uint8Array | undefined;
  try {
    bytes = declaredLength === null ? await readAtMost(request.body, maxBytes) : await readWhole(request, maxBytes);
  } catch {
    return { ok: false, reply: errorReply("invalid_body", `${action}: the body could not be read to its end`) };
  }
  if (bytes === undefined) return { ok: false, reply: tooLarge(maxBytes, action) };
  try {
    return { ok: true, text: decoder.decode(bytes) };
  } catch {
    return { ok: false, reply: errorReply("invalid_body", `${action}: body is not valid UTF-8`) };
  }
}

function checkHeaders(request: RequestLike, declaredLength: string | null, maxBytes: number, action: string): Reply | undefined {
  const contentType = request.headers.get("content-type");
  if (!isJsonMediaType(contentType)) {
    const got = contentType === null ? "no Content-Type" : `Content-Type ${JSON.stringify(contentType)}`;
    return errorReply("unsupported_media_type", `${action}: body must be application/json, got ${got}`, {
      "accept-post": "application/json",
    });
  }
  const encoding = request.headers.get("content-encoding");
  if (encoding !== null && encoding.trim().toLowerCase() !== "identity") {
    return errorReply("unsupported_media_type", `${action}: Content-Encoding ${JSON.stringify(encoding)} is not supported`, {
      "accept-encoding": "identity",
    });
  }
  if (Number(declaredLength ?? 0) > maxBytes) return tooLarge(maxBytes, action);
  return undefined;
}

/** Whether a Content-Type names JSON: `application/json`, any case, with at most a UTF-8 charset. */
function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === "application/json") return true; // what nearly every client sends
  if (contentType === null) return false;
  const [type = "", ...parameters] = contentType.split(";").map((part) => part.trim().toLowerCase());
  if (type !== "application/json") return false;
  return parameters.every((parameter) => !parameter.startsWith("charset=") || /^charset="?utf-8"?$/.test(parameter));
}

function tooLarge(maxBytes: number, action: string): Reply {
  return errorReply("payload_too_large", `${action}: body must be at most ${maxBytes} bytes`);
}

/**
 * The bytes of a body whose length was declared (and already checked against the limit), or
 * `undefined` if more came: read in one go, which is several times cheaper than a stream on Bun
 * and Node. An undeclared length is streamed by `readAtMost`.
 */
async function readWhole(request: RequestLike, maxBytes: number): Promise<Uint8Array | undefined> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  return bytes.byteLength > maxBytes ? undefined : bytes;
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
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
