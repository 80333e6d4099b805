/**
 * @module
 * `GET /pets/{petId}` (getPet, deprecated): one pet by id.
 */
import type { Context } from "../context.ts";
import type { Operation } from "../operation.ts";
import type { Pet } from "../pet.ts";
import { _getNow, _then } from "../_internal/_answer-now.ts";
import { operation } from "../operation.ts";
import { answer, COMMON_ANSWERS, errorAnswer, HOST_MESSAGE, IF_NONE_MATCH, ref, REQUEST_ID, RESPONSES, withHeaders } from "../openapi/answers.ts";
import { PET_ID } from "../validate-pet.ts";

// What every answer of a deprecated operation carries (`routes.ts` makes them from `deprecation`).
const deprecationHeaders = {
  Deprecation: ref("headers", "Deprecation"),
  Sunset: ref("headers", "Sunset"),
  Link: ref("headers", "SuccessorLink"),
};

/**
 * Answers `GET /pets/{petId}`: 200 with the pet and its `ETag` (made from the pet's text), 304 when
 * the client holds it already, 400 for an id that is not one, 404 for no such pet.
 */
export const getPet: Operation = operation({
  method: "GET",
  path: "/pets/{petId}",
  // The interface gives the sunset but no deprecation date: 2026-11-22 is the first release of
  // this implementation, which shipped getPet deprecated.
  deprecation: { since: "@1795305600", sunset: "Thu, 05 Dec 2030 00:00:00 GMT", successor: "/pets" },
  operationId: "getPet",
  summary: "Fetch one animal (deprecated)",
  description:
    "Deprecated, removed on 5 December 2030: use GET /pets with the status filter. Every answer " +
    "of this path, errors included, carries Deprecation, Sunset and a Link to the successor. A pet " +
    "never changes: its strong ETag with If-None-Match answers 304.",
  tags: ["pets"],
  action: "Cannot get pet",
  parameters: { petId: PET_ID },
  alsoDocumented: [IF_NONE_MATCH, REQUEST_ID],
  answers: {
    "200": answer("The pet.", { ...deprecationHeaders, ETag: ref("headers", "ETag") }, ref("schemas", "Pet")),
    "304": answer("If-None-Match named the pet's ETag: the client's copy is current. No body.", {
      ...deprecationHeaders,
      ETag: ref("headers", "ETag"),
    }),
    "400": errorAnswer(
      "`petId` is not a positive integer in plain decimal (`code` invalid_path), or the Host header is invalid (`code` invalid_header).",
      {
        invalid_path: 'Cannot get pet: "petId" must be a positive integer up to 9007199254740991 without leading zeros, got "abc"',
        invalid_header: HOST_MESSAGE,
      },
      deprecationHeaders,
    ),
    "401": withHeaders(RESPONSES["Unauthorized"]!, deprecationHeaders),
    "404": errorAnswer("No pet has this id (`code` not_found).", { not_found: "Cannot get pet: no pet has id 7" }, deprecationHeaders),
    "429": COMMON_ANSWERS["429"],
    "500": COMMON_ANSWERS["500"],
    "503": COMMON_ANSWERS["503"],
  },

  // As `const pet = await context.store.get(petId)`, but answered now when the store reads now (`_answerNow`).
  handler: (context, { petId }) => _then(_getNow(context.store, petId), (pet) => petAnswer(context, petId, pet)),
});

/** The pet's answer, or 404 when there is none. */
function petAnswer(context: Context, petId: number, pet: Pet | undefined): Response {
  if (pet === undefined) return context.error("not_found", `Cannot get pet: no pet has id ${petId}`);
  return context.tagged(context.petJson(pet));
}
