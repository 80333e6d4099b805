/**
 * @module
 * `GET /pets` (listPets): a page of pets in ascending id order, with a `Link` to the next page.
 */
import type { Context } from "./context.ts";
import type { PageQuery } from "./store.ts";
import { validateListQuery } from "./validate-list-query.ts";
import { joinIssues } from "./validation.ts";

/**
 * Answers `GET /pets`: 200 with a bare JSON array, plus `Link: <…>; rel="next"` when more may follow.
 * A page with a next page is full and can never change (pets are only added, with higher ids), so
 * it carries an `ETag`; the last page grows, so it carries none (only `If-None-Match: *` gets 304).
 */
export async function listPets(context: Context): Promise<Response> {
  const query = validateListQuery(context.query);
  if (!query.ok) return context.error("invalid_query", `Cannot list pets: ${joinIssues(query.issues)}`);
  const { limit } = query.value;
  // One pet more than asked tells whether a next page exists without a second query.
  const pets = await context.store.list({ ...query.value, limit: limit + 1 });
  if (pets.length <= limit) return context.untagged(context.pageJson(pets));
  const page = pets.slice(0, limit);
  const next = nextPageUrl(context.baseUrl, query.value, page[page.length - 1]!.id);
  return context.tagged(context.pageJson(page), { link: `<${next}>; rel="next"` });
}

/** The URL of the page after `lastId`, keeping the page size and filter (RFC 8288 target). */
function nextPageUrl(baseUrl: string, query: PageQuery, lastId: number): string {
  const status = query.status === undefined ? "" : `&status=${query.status}`;
  return `${baseUrl}/pets?limit=${query.limit}${status}&after=${lastId}`;
}
