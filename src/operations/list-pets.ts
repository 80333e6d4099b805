/**
 * @module
 * `GET /pets` (listPets): a page of pets in ascending id order, with a `Link` to the next page.
 */
import type { Context } from "../context.ts";
import type { Operation, Parameter } from "../operation.ts";
import type { Pet, PetStatus } from "../pet.ts";
import type { PageQuery } from "../store.ts";
import { operation } from "../operation.ts";
import { answer, COMMON_ANSWERS, errorAnswer, HOST_MESSAGE, IF_NONE_MATCH, ref, REQUEST_ID } from "../openapi/answers.ts";
import { isPetStatus, MAX_EXACT_INTEGER } from "../pet.ts";
import { describe, invalid, statusProblem, valid } from "../validation.ts";
import { parseCanonicalInteger } from "../_internal/_number-literals.ts";
import { _listNow, _then } from "../_internal/_answer-now.ts";

/** The smallest, largest and default page size. */
export const LIMIT = { min: 1, max: 100, default: 20 } as const;

const limit: Parameter<number> = {
  name: "limit",
  in: "query",
  required: false,
  description: "Page size: an integer from 1 to 100. Written in plain decimal (no sign, no leading zero, no spaces; see x-request-rules integer-spelling).",
  schema: { type: "integer", format: "int32", minimum: LIMIT.min, maximum: LIMIT.max, default: LIMIT.default, examples: [LIMIT.default] },
  read(text) {
    const value = text === undefined ? LIMIT.default : parseCanonicalInteger(text);
    if (value !== undefined && value >= LIMIT.min && value <= LIMIT.max) return valid(value);
    return invalid([`"limit" must be an integer from ${LIMIT.min} to ${LIMIT.max}, got ${describe(text)}`]);
  },
};

const status: Parameter<PetStatus | undefined> = {
  name: "status",
  in: "query",
  required: false,
  description: "Only pets with this status (case-sensitive). Default: no filter.",
  schema: ref("schemas", "PetStatus"),
  read: (text) => (text === undefined || isPetStatus(text) ? valid(text) : invalid([statusProblem(text)])),
};

const after: Parameter<number> = {
  name: "after",
  in: "query",
  required: false,
  description: "Cursor: only pets with a greater id. An integer from 0 (the start, the default), written in plain decimal (see x-request-rules integer-spelling).",
  schema: { type: "integer", format: "int64", minimum: 0, maximum: MAX_EXACT_INTEGER, default: 0, examples: [0] },
  read(text) {
    const value = text === undefined ? 0 : parseCanonicalInteger(text);
    return value === undefined ? invalid([`"after" must be a pet id (an integer of 0 or more), got ${describe(text)}`]) : valid(value);
  },
};

/**
 * Answers `GET /pets`: 200 with a bare JSON array, plus `Link: <…>; rel="next"` when more may follow.
 * A full page carries an `ETag` made from its text; the last page, which grows, carries none (only
 * `If-None-Match: *` gets 304).
 */
export const listPets: Operation = operation({
  method: "GET",
  path: "/pets",
  operationId: "listPets",
  summary: "List animals",
  description:
    "Pets in ascending id order. Pages: pass the id of the last pet seen as `after`, or follow the " +
    "`Link` header with rel=\"next\", present whenever a further pet existed when the page was read. " +
    "A walk sees every pet once, even while pets are added. Unknown or repeated parameters, and any " +
    "value out of range or not in plain decimal, answer 400 invalid_query (never clamped). " +
    "A page with a next page never changes, so it carries a strong ETag, and If-None-Match with it " +
    "answers 304; the last page grows, so it carries none.",
  tags: ["pets"],
  action: "Cannot list pets",
  parameters: { limit, status, after },
  alsoDocumented: [IF_NONE_MATCH, REQUEST_ID],
  answers: {
    "200": answer(
      "A page of pets: a bare JSON array.",
      {
        Link: ref("headers", "NextLink"),
        ETag: { $ref: "#/components/headers/ETag", description: "Sent on a page that has a next page (it never changes)." },
      },
      { type: "array", items: ref("schemas", "Pet"), maxItems: LIMIT.max },
    ),
    "304": answer("If-None-Match named this page's ETag: the client's copy is current. No body.", {
      Link: ref("headers", "NextLink"),
      ETag: ref("headers", "ETag"),
    }),
    "400": errorAnswer(
      "A query parameter is unknown, repeated or invalid (`code` invalid_query); every problem is named. Or the Host header is invalid (`code` invalid_header).",
      { invalid_query: 'Cannot list pets: "limit" must be an integer from 1 to 100, got "0"', invalid_header: HOST_MESSAGE },
    ),
    ...COMMON_ANSWERS,
  },

  handler(context, { limit, status, after }) {
    const query: PageQuery = status === undefined ? { limit, after } : { limit, after, status };
    // One pet more than asked tells whether a next page exists without a second query. As `await
    // context.store.list(…)`, but answered now when the store reads now (`_answerNow`).
    return _then(_listNow(context.store, { ...query, limit: limit + 1 }), (pets) => pageAnswer(context, query, pets));
  },
});

/** The page's answer, from the pets read with one more than asked: tagged, with a `Link` to the next page, when there was one more. */
function pageAnswer(context: Context, query: PageQuery, pets: readonly Pet[]): Response {
  if (pets.length <= query.limit) return context.untagged(context.pageJson(pets));
  const page = pets.slice(0, query.limit);
  const next = nextPageUrl(context.baseUrl, query, page[page.length - 1]!.id);
  return context.tagged(context.pageJson(page), { link: `<${next}>; rel="next"` });
}

/** The URL of the page after `lastId`, keeping the page size and filter (RFC 8288 target). */
function nextPageUrl(baseUrl: string, query: PageQuery, lastId: number): string {
  const status = query.status === undefined ? "" : `&status=${query.status}`;
  return `${baseUrl}/pets?limit=${query.limit}${status}&after=${lastId}`;
}
