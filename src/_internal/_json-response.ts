/**
 * @module
 * How the service builds a JSON response: the text with its media type and its length. Declaring
 * the length lets whoever logs or frames the answer (the access log, a HEAD) know it without reading
 * the body. A tagged 200 (`context.ts`) gets the same headers from the app's memory of its texts.
 */

/** A response carrying JSON text already written, with the given status and any extra headers. */
export function jsonResponse(status: number, json: string, headers?: Readonly<Record<string, string>>): Response {
  return new Response(json, { status, headers: { "content-type": "application/json", "content-length": String(utf8Length(json)), ...headers } });
}

/** How many bytes `text` takes in UTF-8, counted without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    // Two bytes up to U+07FF and three above, but four for a surrogate pair (two units); a lone
    // surrogate is sent as U+FFFD, three bytes.
    if (unit < 0x800) bytes += 1;
    else if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
