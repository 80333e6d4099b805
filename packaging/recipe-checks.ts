/**
 * @module
 * What a host recipe must serve over HTTP, the same for every host: the API under `/pets-api/v1`
 * (a create with its `Location`, a list whose `Link` is followed, a get with its deprecation fields,
 * a 401 and a 400 error object), the host's own `/health` beside it, and the host's per-user cookie
 * middleware on every answer, each user's cookie on that user's answers only, with requests at once.
 */

const KEY_HEADERS = { authorization: "Bearer my-secret-key", "content-type": "application/json" };
/** Requests sent at once in the cookie check. */
const AT_ONCE = 12;

/** Throws unless `actual` is `expected`. */
function expectSame(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** A request with a time limit, as `user` (the header the recipes' cookie middleware reads). */
function send(url: string, user: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, headers: { ...KEY_HEADERS, "x-user": user, ...init.headers }, signal: AbortSignal.timeout(10_000) });
}

/** The URL of a `Link` field's entry of relation `rel`. */
function linkOf(response: Response, rel: string): string | undefined {
  return new RegExp(`<([^>]+)>; rel="${rel}"`).exec(response.headers.get("link") ?? "")?.[1];
}

/** Throws unless the answer carries exactly one cookie, the one the middleware makes for `user`. */
function expectOwnCookie(what: string, response: Response, user: string): void {
  const cookies = response.headers.getSetCookie();
  if (cookies.length !== 1 || !cookies[0]!.startsWith(`session=${user};`)) throw new Error(`${what} as ${user}: Set-Cookie ${JSON.stringify(cookies)}`);
}

/** Creates a pet as `user`; resolves with its id, once its `Location` and cookie are checked. */
async function create(base: string, name: string, user: string): Promise<number> {
  const created = await send(`${base}/pets`, user, { method: "POST", body: JSON.stringify({ name, categoryId: 1 }) });
  const pet = (await created.json()) as { id: number };
  expectSame(`POST ${base}/pets`, { status: created.status, location: created.headers.get("location") }, { status: 201, location: `${base}/pets/${pet.id}` });
  expectOwnCookie(`POST ${base}/pets`, created, user);
  return pet.id;
}

/** Runs every check of a host recipe against the host at `url`; throws with the first that fails. */
export async function recipeServes(url: string): Promise<void> {
  const base = `${url}/pets-api/v1`;
  const first = await create(base, "Rex", "alice");
  const second = await create(base, "Fido", "bob");

  const page = await send(`${base}/pets?limit=1`, "alice");
  expectSame(`GET ${base}/pets?limit=1`, { status: page.status, pets: await page.json() }, { status: 200, pets: [{ id: first, name: "Rex", categoryId: 1 }] });
  const next = linkOf(page, "next");
  if (next === undefined || !next.startsWith(`${base}/pets?`)) throw new Error(`GET ${base}/pets?limit=1: Link ${page.headers.get("link")}`);
  const rest = await send(next, "alice");
  expectSame(`GET ${next} (the next page's Link)`, await rest.json(), [{ id: second, name: "Fido", categoryId: 1 }]);

  const got = await send(`${base}/pets/${first}`, "alice");
  expectSame(`GET ${base}/pets/${first}`, {
    status: got.status,
    body: await got.json(),
    deprecation: got.headers.get("deprecation")?.startsWith("@"),
    sunset: got.headers.get("sunset") !== null,
    successor: linkOf(got, "successor-version"),
  }, { status: 200, body: { id: first, name: "Rex", categoryId: 1 }, deprecation: true, sunset: true, successor: `${base}/pets` });

  const noKey = await fetch(`${base}/pets`, { signal: AbortSignal.timeout(10_000) });
  expectSame(`GET ${base}/pets without a key`, { status: noKey.status, challenge: noKey.headers.get("www-authenticate"), code: ((await noKey.json()) as { code: string }).code }, {
    status: 401,
    challenge: 'Bearer realm="animal-store"',
    code: "unauthorized",
  });
  const bad = await send(`${base}/pets`, "alice", { method: "POST", body: '{"name":' });
  expectSame(`POST ${base}/pets with bad JSON`, { status: bad.status, type: bad.headers.get("content-type"), body: await bad.json() }, {
    status: 400,
    type: "application/json",
    body: { code: "invalid_body", message: "Cannot create pet: body is not valid JSON", status: 400 },
  });
  const health = await send(`${url}/health`, "alice");
  expectSame(`GET ${url}/health`, { status: health.status, body: await health.text() }, { status: 200, body: "ok" });

  // Every kind of answer at once, alternating users: each keeps its own cookie, none piles up.
  // A 401 too: an empty Authorization is a missing key.
  const requests: [string, RequestInit][] = [
    [`${base}/pets/${first}`, {}],
    [`${base}/pets?limit=1`, {}],
    [`${base}/pets/999`, {}],
    [`${base}/pets`, { headers: { authorization: "" } }],
    [`${url}/health`, {}],
  ];
  await Promise.all(Array.from({ length: AT_ONCE }, async (_, i) => {
    const user = i % 2 === 0 ? "alice" : "bob";
    const [target, init] = requests[i % requests.length]!;
    const response = await send(target, user, init);
    await response.arrayBuffer();
    expectOwnCookie(`GET ${target}`, response, user);
  }));
}
