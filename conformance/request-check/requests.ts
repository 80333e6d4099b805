/**
 * @module
 * The requests the check sends: every parameter, body member and media type the document declares,
 * each in valid and invalid spellings, and the problem classes issue 26 lists (numbers spelled
 * with a sign, leading zeros, spaces, fractions or exponents; unknown and repeated query
 * parameters; bodies without a JSON media type; odd path shapes; other methods and paths).
 *
 * Each request carries a `tag`, its class, which the report counts by. Values come from tables
 * keyed by parameter name; `requestsFor` throws when the document declares a parameter with no
 * table, so a new parameter cannot go unchecked. Header values stay within the document's
 * `maxLength`: past it, the HTTP server's header limit answers before the service runs, which an
 * in-process check cannot see.
 */

/** One generated request; `path` is relative to the server URL and may hold a query. */
export interface GeneratedRequest {
  readonly tag: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array<ArrayBuffer>;
}

/** Spellings of numbers, each with the class it belongs to. */
type Spelling = readonly [tag: string, text: string];

const MAX = 9007199254740991;

/** Ways to write the integer `n` that a strict reader refuses and a lenient one reads as `n`. */
function lenientSpellings(n: number): Spelling[] {
  return [
    ["sign", `+${n}`],
    ["leading zero", `0${n}`],
    ["leading zero", `00${n}`],
    ["space", ` ${n}`],
    ["space", `${n} `],
    ["space", `${n}%20`],
    ["tab", `${n}%09`],
    ["fraction", `${n}.0`],
    ["fraction", `${n}.`],
    ["exponent", `${n}e0`],
    ["exponent", `${n}E0`],
    ["hexadecimal", `0x${n.toString(16)}`],
    ["binary", `0b${n.toString(2)}`],
  ];
}

/** Plain spellings of integers in and out of a range. */
function rangeSpellings(min: number, max: number, inside: readonly number[]): Spelling[] {
  return [
    ...inside.map((n): Spelling => ["valid", String(n)]),
    ["below range", String(min - 1)],
    ["above range", String(max + 1)],
    ["negative", "-1"],
    ["negative zero", "-0"],
    ["far above range", "9007199254740993"],
    ["far above range", "1" + "0".repeat(30)],
    ["not a number", "abc"],
    ["not a number", "NaN"],
    ["not a number", "Infinity"],
    ["empty", ""],
    ["fraction", "1.5"],
    ["full-width digits", "%EF%BC%95"],
    ...inside.slice(0, 2).flatMap(lenientSpellings),
  ];
}

/** Values for each query and path parameter, by name. */
const PARAMETER_VALUES: Record<string, Spelling[]> = {
  limit: rangeSpellings(1, 100, [1, 2, 20, 99, 100]),
  after: rangeSpellings(0, MAX, [0, 1, 3, 1000, MAX]),
  status: [
    ["valid", "available"],
    ["valid", "pending"],
    ["valid", "sold"],
    ["wrong case", "SOLD"],
    ["wrong case", "Available"],
    ["unknown value", "lost"],
    ["empty", ""],
    ["space", "sold%20"],
    ["encoded", "%73old"],
  ],
  petId: [
    ...rangeSpellings(1, MAX, [1, 2, 3, 999, MAX]),
    ["zero", "0"],
    ["encoded digit", "%31"],
    ["encoded slash", "1%2F2"],
    ["encoded dot", "1%2E0"],
    ["letters after digits", "1abc"],
  ],
};

const AUTH = (key: string) => ({ authorization: `Bearer ${key}` });

/** The requests for a document's operations, authenticated with `key`. */
export function requestsFor(document: Record<string, unknown>, key: string): GeneratedRequest[] {
  const declared = declaredParameters(document);
  for (const name of declared) {
    if (!(name in PARAMETER_VALUES) && !HEADER_PARAMETERS.has(name.toLowerCase())) {
      throw new Error(`Cannot generate requests: the document declares parameter "${name}", which has no table of values`);
    }
  }
  return [
    ...listRequests(key),
    ...getRequests(key),
    ...createRequests(key),
    ...headerRequests(key),
    ...authRequests(key),
    ...routingRequests(key),
  ];
}

/** The names of every query, path and header parameter of the document. */
function declaredParameters(document: Record<string, unknown>): string[] {
  const text = JSON.stringify(document);
  const names = new Set<string>();
  for (const match of text.matchAll(/"name":"([^"]+)","in":"(query|path|header)"/g)) names.add(match[1]!);
  return [...names];
}

/** Header parameters the check sets itself (in `headerRequests`, `createRequests`, `authRequests`). */
const HEADER_PARAMETERS = new Set([
  "if-none-match",
  "x-request-id",
  "idempotency-key",
  "content-encoding",
  "origin",
  "access-control-request-method",
  "access-control-request-headers",
]);

function listRequests(key: string): GeneratedRequest[] {
  const requests: GeneratedRequest[] = [];
  const get = (tag: string, query: string): GeneratedRequest => ({ tag, method: "GET", path: `/pets${query === "" ? "" : `?${query}`}`, headers: AUTH(key) });
  requests.push(get("listPets: no query", ""));
  for (const name of ["limit", "status", "after"]) {
    for (const [tag, text] of PARAMETER_VALUES[name]!) {
      requests.push(get(`${name}: ${tag}`, `${name}=${text}`));
      // The same value beside the other parameters, valid.
      requests.push(get(`${name}: ${tag}`, name === "limit" ? `status=sold&limit=${text}&after=1` : `limit=5&${name}=${text}`));
    }
  }
  for (const [limit] of [["1"], ["50"], ["100"]]) {
    for (const status of ["available", "pending", "sold"]) {
      for (const after of ["0", "2", "5"]) requests.push(get("listPets: valid combination", `limit=${limit}&status=${status}&after=${after}`));
    }
  }
  for (const query of ["limt=5", "foo=bar", "Limit=5", "LIMIT=5", "limit[]=5", "page=2", "offset=0", "sort=id", "status=sold&x=1", "limit=5&Status=sold", "cursor=3", "a", "_=1"]) {
    requests.push(get("unknown query parameter", query));
  }
  for (const query of ["limit=5&limit=5", "limit=5&limit=6", "status=sold&status=sold", "status=sold&status=pending", "after=1&after=1", "after=1&limit=2&after=3", "limit=1&status=sold&limit=1"]) {
    requests.push(get("repeated query parameter", query));
  }
  for (const query of ["%6Cimit=5", "limit=%35", "status=s%6Fld", "&limit=5", "limit=5&", "limit=5&&status=sold", "status=sold#fragment"]) {
    requests.push(get("listPets: encoded or empty parts", query));
  }
  for (const query of ["limit", "status", "after", "limit=", "status=", "after="]) {
    requests.push(get("empty query value", query));
  }
  for (const [tag, query] of [["HEAD", ""], ["HEAD", "limit=5"], ["HEAD", "limit=0"], ["unknown query parameter", "foo=1"]] as const) {
    requests.push({ ...get(tag, query), method: "HEAD" });
  }
  return requests;
}

function getRequests(key: string): GeneratedRequest[] {
  const requests: GeneratedRequest[] = [];
  for (const [tag, text] of PARAMETER_VALUES["petId"]!) {
    requests.push({ tag: `petId: ${tag}`, method: "GET", path: `/pets/${text.replaceAll(" ", "%20")}`, headers: AUTH(key) });
  }
  for (const path of ["/pets/1?x=1", "/pets/1?limit=abc", "/pets/2?petId=3"]) {
    requests.push({ tag: "getPet: query parameters", method: "GET", path, headers: AUTH(key) });
  }
  for (const path of ["/pets/1", "/pets/0", "/pets/01"]) requests.push({ tag: "HEAD", method: "HEAD", path, headers: AUTH(key) });
  requests.push({ tag: "listStoreOrders", method: "GET", path: "/store/orders", headers: AUTH(key) });
  requests.push({ tag: "listStoreOrders", method: "GET", path: "/store/orders?status=placed", headers: AUTH(key) });
  return requests;
}

const JSON_AUTH = (key: string) => ({ ...AUTH(key), "content-type": "application/json" });

/** A pet body written by hand, so numbers keep the spelling given. */
function petText(name: string, categoryId: string, status?: string): string {
  return `{"name":${name},"categoryId":${categoryId}${status === undefined ? "" : `,"status":${status}`}}`;
}

function createRequests(key: string): GeneratedRequest[] {
  const requests: GeneratedRequest[] = [];
  const post = (tag: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = JSON_AUTH(key)): GeneratedRequest =>
    ({ tag, method: "POST", path: "/pets", headers, body });

  const names: Spelling[] = [
    ["valid", '"Rex"'],
    ["valid", '"a"'],
    ["valid", JSON.stringify("x".repeat(200))],
    ["valid", JSON.stringify("🐕".repeat(200))],
    ["valid", '" Rex "'],
    ["valid", '"Ünïcödé 名前"'],
    ["valid", '"\\u0000x"'],
    ["valid", '"\\ud83d\\udc15"'],
    ["empty", '""'],
    ["only whitespace", '"   "'],
    ["only whitespace", '"\\t\\n"'],
    ["only whitespace", '"\\u00a0\\u2003"'],
    ["too long", JSON.stringify("x".repeat(201))],
    ["too long", JSON.stringify("🐕".repeat(201))],
    ["lone surrogate", '"\\ud800"'],
    ["lone surrogate", '"Rex\\udc00"'],
    ["lone surrogate", '"\\udc00\\ud800"'],
    ["wrong type", "1"],
    ["wrong type", "null"],
    ["wrong type", "true"],
    ["wrong type", '["Rex"]'],
    ["wrong type", '{"first":"Rex"}'],
  ];
  for (const [tag, name] of names) requests.push(post(`name: ${tag}`, petText(name, "1")));

  const categoryIds: Spelling[] = [
    ["valid", "1"],
    ["valid", "0"],
    ["valid", "-1"],
    ["valid", "-0"],
    ["valid", String(MAX)],
    ["valid", String(-MAX)],
    ["valid", "123456789"],
    ["fraction or exponent", "1.0"],
    ["fraction or exponent", "0.0"],
    ["fraction or exponent", "-0.0"],
    ["fraction or exponent", "1e2"],
    ["fraction or exponent", "1E2"],
    ["fraction or exponent", "1e+2"],
    ["fraction or exponent", "100e-2"],
    ["fraction or exponent", "-1e-400"],
    ["fraction or exponent", "1e-400"],
    ["fraction or exponent", "1.0000000000000001"],
    ["fraction or exponent", "9007199254740991.4"],
    ["fraction or exponent", "1.5e1"],
    ["fraction", "1.5"],
    ["fraction", "-0.5"],
    ["out of range", String(MAX + 1)],
    ["out of range", "-9007199254740992"],
    ["out of range", "9007199254740993"],
    ["out of range", "1e400"],
    ["out of range", "1" + "0".repeat(30)],
    ["wrong type", '"1"'],
    ["wrong type", "null"],
    ["wrong type", "true"],
    ["wrong type", "[1]"],
    ["wrong type", "{}"],
  ];
  for (const [tag, categoryId] of categoryIds) {
    requests.push(post(`categoryId: ${tag}`, petText('"Rex"', categoryId)));
    requests.push(post(`categoryId: ${tag}`, petText('"Rex"', categoryId, '"sold"')));
  }

  const statuses: Spelling[] = [
    ["valid", '"available"'],
    ["valid", '"pending"'],
    ["valid", '"sold"'],
    ["wrong case", '"SOLD"'],
    ["unknown value", '"lost"'],
    ["empty", '""'],
    ["wrong type", "null"],
    ["wrong type", "1"],
    ["wrong type", '["sold"]'],
  ];
  for (const [tag, status] of statuses) requests.push(post(`status: ${tag}`, petText('"Rex"', "1", status)));

  const shapes: Spelling[] = [
    ["missing member", '{"name":"Rex"}'],
    ["missing member", '{"categoryId":1}'],
    ["missing member", "{}"],
    ["unknown member", '{"name":"Rex","categoryId":1,"colour":"red"}'],
    ["unknown member", '{"name":"Rex","categoryId":1,"id":5}'],
    ["unknown member", '{"name":"Rex","categoryId":1,"__proto__":{"x":1}}'],
    ["unknown member", '{"name":"Rex","categoryId":1,"constructor":1}'],
    ["unknown member", '{"name":"Rex","categoryId":1,"Name":"Rex"}'],
    ["repeated member", '{"name":"Rex","name":"Kit","categoryId":1}'],
    ["repeated member", '{"name":"Rex","categoryId":"x","categoryId":1}'],
    ["repeated member", '{"name":"Rex","categoryId":1,"categoryId":1.5}'],
    ["not an object", "[]"],
    ["not an object", '[{"name":"Rex","categoryId":1}]'],
    ["not an object", '"Rex"'],
    ["not an object", "1"],
    ["not an object", "null"],
    ["not JSON", '{"name": "Rex", '],
    ["not JSON", "{'name':'Rex','categoryId':1}"],
    ["not JSON", '{"name":"Rex","categoryId":01}'],
    ["not JSON", '{"name":"Rex","categoryId":+1}'],
    ["not JSON", '{"name":"Rex","categoryId":NaN}'],
    ["not JSON", '{"name":"Rex","categoryId":1,}'],
    ["not JSON", '\ufeff{"name":"Rex","categoryId":1}'],
    ["empty body", ""],
    ["empty body", "   "],
    ["whitespace around", ' \n {"name":"Rex","categoryId":1} \n '],
    ["deep nesting", `{"name":"Rex","categoryId":1,"x":${"[".repeat(2000)}${"]".repeat(2000)}}`],
  ];
  for (const [tag, body] of shapes) requests.push(post(`body: ${tag}`, body));
  const utf8 = (text: string) => [...new TextEncoder().encode(text)];
  requests.push(post("body: not UTF-8", new Uint8Array([...utf8('{"name":"'), 0xff, ...utf8('","categoryId":1}')])));

  const pet = petText('"Rex"', "1");
  const contentTypes: Spelling[] = [
    ["JSON", "application/json"],
    ["JSON", "application/json; charset=utf-8"],
    ["JSON", "application/json;charset=UTF-8"],
    ["JSON", 'application/json; charset="utf-8"'],
    ["JSON", "APPLICATION/JSON"],
    ["JSON", "Application/Json"],
    ["JSON", "application/json; version=1"],
    ["JSON with another charset", "application/json; charset=iso-8859-1"],
    ["JSON with another charset", "application/json; charset=utf-16"],
    ["not JSON", "text/plain"],
    ["not JSON", "text/json"],
    ["not JSON", "application/x-www-form-urlencoded"],
    ["not JSON", "application/merge-patch+json"],
    ["not JSON", "application/vnd.api+json"],
    ["not JSON", "application/jsonx"],
    ["not JSON", "application/json, text/plain"],
    ["not JSON", "multipart/form-data; boundary=x"],
    ["not JSON", "*/*"],
    ["not JSON", "application/*"],
    ["not JSON", ""],
  ];
  for (const [tag, contentType] of contentTypes) {
    requests.push(post(`Content-Type: ${tag}`, pet, { ...AUTH(key), "content-type": contentType }));
  }
  requests.push(post("Content-Type: missing", pet, AUTH(key)));
  for (const encoding of ["identity", "IDENTITY", "Identity", " identity "]) {
    requests.push(post("Content-Encoding: identity", pet, { ...JSON_AUTH(key), "content-encoding": encoding }));
  }
  for (const encoding of ["gzip", "br", "deflate", "identity, gzip", "x"]) {
    requests.push(post("Content-Encoding: compressed", pet, { ...JSON_AUTH(key), "content-encoding": encoding }));
  }

  // Bodies around the 65536-byte limit: valid JSON padded with whitespace, and a name padded past its own limit.
  for (const size of [65535, 65536]) requests.push(post("body size: within 64 KiB", pet + " ".repeat(size - pet.length)));
  for (const size of [65537, 70000, 300000]) requests.push(post("body size: over 64 KiB", pet + " ".repeat(size - pet.length)));
  requests.push(post("body size: over 64 KiB", petText(JSON.stringify("x".repeat(70000)), "1")));

  let serial = 0;
  const fresh = (text: string) => text.replace("#", String(++serial));
  const keys: Spelling[] = [
    ["valid", "key-#"],
    ["valid", "8e03978e-40d5-43e8-bc93-#"],
    ["valid", '"quoted-#"'],
    ["valid", `#${"k".repeat(240)}`],
    ["valid", "!#$%&'()*+,-./:;<=>?@[]^_`{|}~"],
    ["too long", `#${"k".repeat(255)}`],
    ["space inside", "a b#"],
    ["quote inside", 'a"b#'],
    ["backslash inside", "a\\b#"],
    ["unbalanced quote", '"a#'],
    ["empty quotes", '""'],
    ["not ASCII", "clé#"],
  ];
  for (const [tag, value] of keys) {
    const header = fresh(value);
    if ([...header].some((c) => c.charCodeAt(0) > 0xff)) continue; // a header cannot carry it
    requests.push(post(`Idempotency-Key: ${tag}`, pet, { ...JSON_AUTH(key), "idempotency-key": header }));
  }
  return requests;
}

/** Headers every operation reads or tolerates, on a valid list and get. */
function headerRequests(key: string): GeneratedRequest[] {
  const requests: GeneratedRequest[] = [];
  const values: [string, string, string][] = [
    ["If-None-Match", "tag", '"0123456789abcdef"'],
    ["If-None-Match", "tag", 'W/"0123456789abcdef"'],
    ["If-None-Match", "tag", "*"],
    ["If-None-Match", "tag", '"a", "b", W/"c"'],
    ["If-None-Match", "junk", "not a tag"],
    ["If-None-Match", "junk", "x".repeat(1000)],
    ["X-Request-Id", "valid", "req-1.2:3_4"],
    ["X-Request-Id", "valid", "r".repeat(128)],
    ["X-Request-Id", "replaced", "r".repeat(129)],
    ["X-Request-Id", "replaced", "has space"],
    ["X-Request-Id", "replaced", "ünicode"],
  ];
  for (const [name, tag, value] of values) {
    for (const path of ["/pets", "/pets/1"]) {
      requests.push({ tag: `${name}: ${tag}`, method: "GET", path, headers: { ...AUTH(key), [name]: value } });
    }
  }
  return requests;
}

/** A key of scope read the service under check also accepts: it may list and get, and is refused a create. */
export const READ_ONLY_KEY = "request-check-read-only-key";

function authRequests(key: string): GeneratedRequest[] {
  const headers: [string, Record<string, string>][] = [
    ["key: read scope", { authorization: `Bearer ${READ_ONLY_KEY}` }],
    ["key: missing", {}],
    ["key: wrong", { authorization: "Bearer not-the-key" }],
    ["key: another scheme", { authorization: `Basic ${key}` }],
    ["key: empty", { authorization: "Bearer " }],
    ["key: scheme case", { authorization: `bearer ${key}` }],
    ["key: scheme case", { authorization: `BEARER ${key}` }],
    ["key: token only", { authorization: key }],
  ];
  const requests: GeneratedRequest[] = [];
  for (const [tag, auth] of headers) {
    requests.push({ tag, method: "GET", path: "/pets", headers: auth });
    requests.push({ tag, method: "GET", path: "/pets/1", headers: auth });
    requests.push({ tag, method: "GET", path: "/store/orders", headers: auth });
    requests.push({ tag, method: "POST", path: "/pets", headers: { ...auth, "content-type": "application/json" }, body: petText('"Rex"', "1") });
  }
  return requests;
}

function routingRequests(key: string): GeneratedRequest[] {
  const requests: GeneratedRequest[] = [];
  for (const path of ["/pets", "/pets/1", "/store/orders"]) {
    for (const method of ["PUT", "DELETE", "PATCH", "TRACE", "OPTIONS", "POST"]) {
      if (path === "/pets" && method === "POST") continue;
      requests.push({ tag: "method not offered", method, path, headers: AUTH(key) });
      requests.push({ tag: "method not offered, no key", method, path, headers: {} });
    }
  }
  for (const path of ["/pets/", "/pet", "/pets/1/", "/pets/1/photos", "/store", "/store/orders/1", "/", "/PETS", "/openapi", "/health"]) {
    requests.push({ tag: "no such path", method: "GET", path, headers: AUTH(key) });
  }
  return requests;
}
