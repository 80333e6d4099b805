/**
 * @module
 * What a host recipe with its own OpenTelemetry must show at `GET /spans` after a traced create and
 * get under `/pets-api/v1`: the host's server span continuing the caller's `traceparent`, the API's
 * span (named by the route template) its child, the store's span the API span's child, and no key
 * or body text in any span.
 */

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const HEADERS = { authorization: "Bearer my-secret-key", "content-type": "application/json", traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` };

interface RecordedSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly attributes: Record<string, unknown>;
}

/** Throws unless `actual` is `expected`. */
function expectSame(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** Runs the tracing checks against the host at `url`; throws with the first that fails. */
export async function hostContinuesTrace(url: string): Promise<void> {
  const base = `${url}/pets-api/v1`;
  const created = await fetch(`${base}/pets`, { method: "POST", headers: HEADERS, body: '{"name":"Body-Text-Zq81","categoryId":1}', signal: AbortSignal.timeout(10_000) });
  expectSame(`POST ${base}/pets`, created.status, 201);
  const { id } = (await created.json()) as { id: number };
  expectSame(`GET ${base}/pets/${id}`, (await fetch(`${base}/pets/${id}`, { headers: HEADERS, signal: AbortSignal.timeout(10_000) })).status, 200);
  // A host span ends when its answer is finished, which may be just after the client has it.
  await Bun.sleep(200);
  const spans = (await (await fetch(`${url}/spans`)).json()) as RecordedSpan[];
  const ours = spans.find((span) => span.name === "POST /pets-api/v1/pets");
  if (ours === undefined) throw new Error(`no span named "POST /pets-api/v1/pets" in ${JSON.stringify(spans.map((span) => span.name))}`);
  const host = spans.find((span) => span.spanId === ours.parentSpanId);
  if (host === undefined) throw new Error(`the API's span has no parent among the host's spans: ${JSON.stringify(spans)}`);
  expectSame("the host's server span: its trace and parent", { traceId: host.traceId, parent: host.parentSpanId, kind: host.kind }, { traceId: TRACE_ID, parent: CALLER_SPAN, kind: 1 });
  expectSame("the API's span inside the host's: kind INTERNAL, its route", { kind: ours.kind, route: ours.attributes["http.route"], status: ours.attributes["http.response.status_code"] }, {
    kind: 0,
    route: "/pets-api/v1/pets",
    status: 201,
  });
  const store = spans.find((span) => span.name === "PetStore.create");
  expectSame("the store's span: a child of the API's", store?.parentSpanId, ours.spanId);
  expectSame("the get's span, named by its template", spans.some((span) => span.name === "GET /pets-api/v1/pets/{petId}" && span.traceId === TRACE_ID), true);
  const text = JSON.stringify(spans);
  for (const secret of ["my-secret-key", "Body-Text-Zq81"]) if (text.includes(secret)) throw new Error(`"${secret}" is in a span: ${text}`);
}
