/**
 * @module
 * The data every benchmark target serves: `count` pets, all available but the last 20, which are
 * sold; and the exact answers the project gives for each scenario, which the raw "limit" servers
 * send precomputed.
 */

/** The key every target accepts. */
export const KEY = "bench-key";

/** The pet with this id in a store of `count` pets. */
export function seedPet(id: number, count: number): { name: string; categoryId: number; status: "available" | "sold" } {
  return { name: `pet ${id}`, categoryId: id % 10, status: id > count - 20 ? "sold" : "available" };
}

/** The id fetched by the get scenario. */
export const GET_ID = 500;

/** The body posted by the create scenario. */
export const CREATE_BODY = '{"name":"bench pet","categoryId":1,"status":"available"}';

/** One precomputed answer. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

function pet(id: number, count: number): object {
  return { id, ...seedPet(id, count) };
}

/** The project's answers for each scenario, for a server at `base` (e.g. `http://127.0.0.1:1234/v1`). */
export function answers(base: string, count: number): { list: Answer; get: Answer; sold: Answer; create: Answer } {
  const json = { "content-type": "application/json" };
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => pet(from + i, count));
  return {
    list: { status: 200, headers: { ...json, link: `<${base}/pets?limit=20&after=20>; rel="next"` }, body: JSON.stringify(range(1, 20)) },
    get: {
      status: 200,
      headers: {
        ...json,
        deprecation: "@1795305600",
        sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
        link: `<${base}/pets>; rel="successor-version"`,
      },
      body: JSON.stringify(pet(GET_ID, count)),
    },
    sold: { status: 200, headers: json, body: JSON.stringify(range(count - 19, count)) },
    create: {
      status: 201,
      headers: { ...json, location: `${base}/pets/${count + 1}` },
      body: JSON.stringify({ id: count + 1, ...JSON.parse(CREATE_BODY) }),
    },
  };
}

/** Which precomputed answer a request gets, or `undefined` for a path no scenario uses. */
export function answerFor(method: string, path: string, all: ReturnType<typeof answers>): Answer | undefined {
  if (method === "POST" && path === "/v1/pets") return all.create;
  if (path === "/v1/pets?limit=20") return all.list;
  if (path === "/v1/pets?status=sold&limit=20") return all.sold;
  if (path === `/v1/pets/${GET_ID}`) return all.get;
  return undefined;
}

/** The limit servers' whole work for a Fetch API request: check the key, send the precomputed answer. */
export async function limitResponse(request: Request, all: ReturnType<typeof answers>): Promise<Response> {
  if (request.headers.get("authorization") !== `Bearer ${KEY}`) return new Response(null, { status: 401 });
  const url = request.url;
  const answer = answerFor(request.method, url.slice(url.indexOf("/", 8)), all);
  if (answer === undefined) return new Response(null, { status: 404 });
  if (request.method === "POST") await request.text();
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
