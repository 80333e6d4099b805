/**
 * @module
 * `GET /pets` (listPets): a page of pets in ascending id order, with a `Link` to the next page.
 */
import type { Context } from "./context.ts";
import type { Reply } from "./reply.ts";
import type { PageQuery } from "./store.ts";
import { errorReply } from "./errors.ts";
import { petsJson } from "./pet-json.ts";
import { jsonTextReply } from "./reply.ts";
import { validateListQuery } from "./validate-list-query.ts";

/** Answers `GET /pets`: 200 with a bare JSON array, plus `Link: <…>; rel="next"` when more may follow. */
export async function listPets(context: Context): Promise<Reply> {
  const query = validateListQuery(context.query);
  if (!query.ok) return errorReply("invalid_query", `Cannot list pets: ${query.issues.join("; ")}`);
  const { limit } = query.value;
  // One pet more than asked tells whether a next page exists without a second query.
  const pets = await context.store.list({ ...query.value, limit: limit + 1 });
  if (pets.length <= limit) return jsonTextReply(200, petsJson(pets));
  const page = pets.slice(0, limit);
  const next = nextPageUrl(context.baseUrl, query.value, page[page.length - 1]!.id);
  return jsonTextReply(200, petsJson(page), { link: `<${next}>; rel="next"` });
}

/** The URL of the page after `lastId`, keeping the page size and filter (RFC 8288 target). */
function nextPageUrl(baseUrl: string, query: PageQuery, lastId: number): string {
  const status = query.status === undefined ? "" : `&status=${query.status}`;
  return `${baseUrl}/pets?limit=${query.limit}${status}&after=${lastId}`;
}
