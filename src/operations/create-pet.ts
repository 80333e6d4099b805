/**
 * @module
 * `POST /pets` (createPet): stores the pet its body holds, answers 201 with its `Location`. With an
 * `Idempotency-Key`, a retry answers the first create's 201 instead of storing a second pet.
 */
import type { Context } from "../context.ts";
import type { Operation, Parameter } from "../operation.ts";
import type { NewPet, Pet } from "../pet.ts";
import type { KeyedCreate } from "../store.ts";
import { operation } from "../operation.ts";
import { answer, COMMON_ANSWERS, errorAnswer, ref, REQUEST_ID, WRITE_ANSWERS } from "../openapi/answers.ts";
import { IDEMPOTENCY_KEY_MAX_LENGTH, readIdempotencyKey, REPLAY_HEADER } from "../idempotency.ts";
import { validateNewPet } from "../validate-pet.ts";
import { _createNow, _then } from "../_internal/_answer-now.ts";

const ACTION = "Cannot create pet";

const idempotencyKey: Parameter<string | undefined> = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    `Makes a retry safe: 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters other than quotes and backslashes ` +
    "(a UUID, say), bare or as a structured-field string in double quotes. Scoped to the API key.",
  schema: {
    type: "string",
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX_LENGTH + 2,
    pattern: `^([!#-\\[\\]-~]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}|"[!#-\\[\\]-~]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}")$`,
  },
  read: (text) => readIdempotencyKey(text ?? null),
};

/** Answers `POST /pets`: 201 with the stored pet, or 400/409/413/415/422 naming what was wrong. */
export const createPet: Operation = operation({
  method: "POST",
  path: "/pets",
  operationId: "createPet",
  summary: "Add an animal",
  description:
    "Stores a new pet under the next id (positive, unique, never reused) and answers it with its " +
    "Location. A status left out stays out. A member given twice counts once, with its last value. " +
    "The 201 is sent only once the pet is durable: on disk with the JSON-file store, committed with PostgreSQL. " +
    "With an Idempotency-Key, a retry of the same create (same API key, key and pet) answers the " +
    "first 201 again, with Idempotent-Replayed: true, and stores nothing; keys are kept at least " +
    "24 hours (the memory and file stores keep at most 100,000 at once, forgetting the oldest first).",
  tags: ["pets"],
  action: ACTION,
  parameters: { idempotencyKey },
  body: {
    description: "A new pet, as application/json (any case; a charset parameter, if any, utf-8), at most 65536 bytes, no Content-Encoding.",
    schema: ref("schemas", "NewPet"),
    example: { name: "Rex", categoryId: 1, status: "available" },
    read: validateNewPet,
  },
  alsoDocumented: [REQUEST_ID],
  answers: {
    "201": answer(
      "The stored pet, with the id it was given; or, for a retry with the same Idempotency-Key, the pet the first request stored.",
      {
        Location: ref("headers", "Location"),
        "Idempotent-Replayed": {
          description: "Sent, as true, when this answer repeats the one a first request with the same Idempotency-Key got.",
          schema: { type: "string", const: "true" },
        },
      },
      ref("schemas", "Pet"),
    ),
    "400": errorAnswer(
      "The body is empty, not JSON, not UTF-8, not an object, or has missing, invalid or unknown fields " +
        "(`id` included) (`code` invalid_body); every problem is named. Or the Idempotency-Key is malformed, " +
        "the Host header is invalid, or a Transfer-Encoding other than chunked is sent (`code` invalid_header).",
      {
        invalid_body: 'Cannot create pet: "name" is required; "categoryId" is required',
        invalid_header:
          'Cannot create pet: "Idempotency-Key" must be 1 to 255 visible ASCII characters other than quotes and backslashes, bare or in double quotes, such as a UUID',
      },
    ),
    "401": COMMON_ANSWERS["401"],
    ...WRITE_ANSWERS,
    "408": errorAnswer(
      "Only when the standalone server runs with DENO_SERVER set (see the project's docs/running.md): the body did not arrive within BODY_TIMEOUT (`code` request_timeout).",
      { request_timeout: "Cannot POST /v1/pets: the body did not arrive within 30 s" },
    ),
    "409": errorAnswer(
      "A request with the same Idempotency-Key is still being answered (`code` idempotency_key_in_use); retry once it is.",
      { idempotency_key_in_use: "Cannot create pet: a request with this Idempotency-Key is still being answered; retry once it is answered" },
      { "Retry-After": { required: true, description: "Seconds to wait before retrying.", schema: { type: "string", const: "1" } } },
    ),
    "413": errorAnswer("The body is larger than 65536 bytes (`code` payload_too_large); the connection is closed.", {
      payload_too_large: "Cannot create pet: body must be at most 65536 bytes",
    }),
    "415": errorAnswer(
      "The body is not application/json, has a charset other than utf-8, or has a Content-Encoding other than identity (`code` unsupported_media_type).",
      { unsupported_media_type: 'Cannot create pet: body must be application/json, got Content-Type "text/plain"' },
      {
        "Accept-Post": { description: "The accepted media type.", schema: { type: "string", const: "application/json" } },
        "Accept-Encoding": { description: "Sent when the body was compressed.", schema: { type: "string", const: "identity" } },
      },
    ),
    "422": errorAnswer(
      "The Idempotency-Key was already used, within the last 24 hours, for a create with a different pet (`code` idempotency_key_reused).",
      { idempotency_key_reused: "Cannot create pet: this Idempotency-Key already created pet 1 from a different body; use a new key for a new pet" },
    ),
    "429": COMMON_ANSWERS["429"],
    "500": COMMON_ANSWERS["500"],
    "501": errorAnswer("An Idempotency-Key was sent but the service's store keeps no keys (`code` not_implemented); never with the standalone server.", {
      not_implemented: 'Cannot create pet: this server\'s store keeps no idempotency keys; send the create without "Idempotency-Key"',
    }),
    "503": COMMON_ANSWERS["503"],
  },

  // As `created(context, await context.store.create(body), false)`, but answered now when the store creates now (`_answerNow`).
  handler: (context, { idempotencyKey, body }) =>
    idempotencyKey === undefined ? _then(_createNow(context.store, body), (pet) => created(context, pet, false)) : createOnce(context, body, idempotencyKey),
});

/** Creates a pet under an idempotency key: the first request stores it, a retry gets the same answer. */
async function createOnce(context: Context, pet: NewPet, keyText: string): Promise<Response> {
  const { store, idempotency } = context;
  if (store.createWithKey === undefined) {
    return context.error("not_implemented", `${ACTION}: this server's store keeps no idempotency keys; send the create without "Idempotency-Key"`);
  }
  const key = idempotency.scope(context.request.headers.get("authorization"), keyText);
  if (!idempotency.startAnswering(key)) {
    return context.error(
      "idempotency_key_in_use",
      `${ACTION}: a request with this Idempotency-Key is still being answered; retry once it is answered`,
      { "retry-after": "1" },
    );
  }
  let outcome: KeyedCreate;
  try {
    outcome = await store.createWithKey(pet, key);
  } finally {
    idempotency.doneAnswering(key);
  }
  if (outcome.replayed && !samePet(outcome.pet, pet)) {
    return context.error(
      "idempotency_key_reused",
      `${ACTION}: this Idempotency-Key already created pet ${outcome.pet.id} from a different body; use a new key for a new pet`,
    );
  }
  return created(context, outcome.pet, outcome.replayed);
}

/** The 201 for a stored pet; a replay says so in a header. */
function created(context: Context, pet: Pet, replayed: boolean): Response {
  const headers: Record<string, string> = { location: `${context.baseUrl}/pets/${pet.id}` };
  if (replayed) headers[REPLAY_HEADER] = "true";
  // Written afresh rather than remembered: a new pet is rarely asked for again at once, and
  // remembering every created pet would evict the pets that pages are made of.
  return context.json(201, JSON.stringify(pet), headers);
}

/** Whether a stored pet holds exactly the fields of a new one. */
function samePet(stored: Pet, pet: NewPet): boolean {
  return stored.name === pet.name && stored.categoryId === pet.categoryId && stored.status === pet.status;
}
