/**
 * @module
 * The request check: can a tool that reads only the OpenAPI document predict what the service
 * accepts and refuses? Each generated request (`requests.ts`) is judged by the document's schemas
 * alone (`judge.ts`) and sent to the service in-process (`createApp(...).fetch`, memory store), and
 * the two are compared. Three kinds of disagreement are counted, by request class:
 *
 * - allowed but refused: the schemas allow the request, the service refuses its form (400, 401,
 *   405, 413, 415, or 404 on a path the document has no operation for);
 * - forbidden but accepted: the schemas forbid it, the service answers it (2xx, 304, or a declared
 *   answer about the data: 404 no such pet, 409, 422, 429, 501, 503);
 * - answer not declared: the service's status is not among the operation's responses (for a request
 *   no operation takes, not among the answers the `x-request-rules` extension names).
 *
 * Each disagreement class must be one the document's `x-request-rules` extension names (the rules
 * OpenAPI 3.1 cannot say in schemas); a class it does not name fails the check. A request the
 * schemas allow only because an integer in its path or query was read from text like `+5`, `05` or
 * `1.0` is counted in the class "integer not in plain decimal" when, and only when, the same request
 * with those integers in plain decimal is allowed and answered: then the spelling alone was refused.
 * Any other refusal keeps the request's own class. Run alone:
 * `bun conformance/request-check/check.ts [document.json]` (default: the document the service serves).
 */
import { readFileSync } from "node:fs";
import { createApp, createMemoryStore } from "../../src/mod.ts";
import type { RequestShape, Verdict } from "./judge.ts";
import { createJudge } from "./judge.ts";
import { READ_ONLY_KEY, requestsFor } from "./requests.ts";

const KEY = "request-check-key";
const BASE_URL = "http://127.0.0.1:8080/v1";
/** Answers about the data or the server's state, not about the request's form. */
const NOT_ABOUT_FORM = new Set([409, 422, 429, 501, 503]);
/** The class of requests refused only for how an integer in the path or query is written. */
const SPELLING = "integer not in plain decimal";

/**
 * The rule of `x-request-rules` that explains each class of disagreement the schemas cannot avoid.
 * A class missing here, or a rule id missing from the document, fails the check.
 */
const EXPLAINED_BY: Readonly<Record<string, string>> = {
  [SPELLING]: "integer-spelling",
  "unknown query parameter": "unknown-query-parameter",
  "categoryId: fraction or exponent": "categoryId-written-form",
  "Content-Type: JSON with another charset": "json-charset",
  "body size: over 64 KiB": "body-size",
  "petId: encoded digit": "petId-as-sent",
  "no such path": "no-such-path",
  "method not offered": "method-not-offered",
  "method not offered, no key": "method-not-offered",
  "key: missing": "key-before-routing",
  "key: read scope": "key-scope",
};

/** One disagreement class and how many requests fell in it. */
export interface Disagreement {
  readonly kind: "allowed but refused" | "forbidden but accepted" | "answer not declared";
  readonly tag: string;
  readonly count: number;
  /** One request of the class, for the reader. */
  readonly example: string;
  /** The `x-request-rules` id that names it, when one does. */
  readonly rule?: string;
  /** For the spelling class: how many came from each generated class (`limit: sign`, ...). */
  readonly from?: Readonly<Record<string, number>>;
}

/** What the check found. */
export interface CheckResult {
  readonly requests: number;
  readonly disagreements: readonly Disagreement[];
  /** Disagreement classes the document's extension does not name. */
  readonly unexplained: readonly Disagreement[];
}

interface ExtensionRule {
  readonly id: string;
  readonly operations?: readonly string[];
  readonly answers: readonly { readonly status: number; readonly code?: string }[];
}

/** Runs the check against `document` (default: the one the service serves). */
export async function checkRequests(document?: Record<string, unknown>): Promise<CheckResult> {
  const store = createMemoryStore();
  const app = createApp({ store, apiKeys: [KEY, { name: "reader", key: READ_ONLY_KEY, scope: "read" }], onError: () => {} });
  const served = (await (await app.fetch(new Request(`${BASE_URL}/openapi.json`))).json()) as Record<string, unknown>;
  const judged = document ?? served;
  for (const name of ["Rex", "Kit", "Tom"]) {
    await app.fetch(new Request(`${BASE_URL}/pets`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name, categoryId: 1 }),
    }));
  }
  const judge = createJudge(judged as never, BASE_URL, [KEY, READ_ONLY_KEY]);
  const rules = ((judged["x-request-rules"] as { rules?: ExtensionRule[] } | undefined)?.rules ?? []);
  const unmatchedAnswers = new Set(rules.filter((rule) => rule.operations === undefined).flatMap((rule) => rule.answers.map((answer) => String(answer.status))));

  type Entry = { kind: Disagreement["kind"]; tag: string; count: number; example: string; rule?: string; from?: Record<string, number> };
  const classes = new Map<string, Entry>();
  /** Counts a disagreement; its class is named only while every request in it is covered by the rule EXPLAINED_BY gives. */
  const note = (kind: Disagreement["kind"], tag: string, example: string, verdict: Verdict, status: number, from?: string) => {
    const key = `${kind}\u0000${tag}`;
    const rule = rules.find((each) => each.id === EXPLAINED_BY[tag]);
    const covered = rule !== undefined && covers(rule, verdict, status);
    const entry = classes.get(key) ?? { kind, tag, count: 0, example, ...(covered ? { rule: rule.id } : {}) };
    entry.count++;
    if (from !== undefined) entry.from = { ...entry.from, [from]: (entry.from?.[from] ?? 0) + 1 };
    if (!covered) {
      delete entry.rule;
      entry.example = example;
    }
    classes.set(key, entry);
  };
  const generated = requestsFor(judged, KEY);
  for (const generatedRequest of generated) {
    const request = new Request(`${BASE_URL}${generatedRequest.path}`, {
      method: generatedRequest.method,
      headers: generatedRequest.headers,
      ...(generatedRequest.body === undefined ? {} : { body: generatedRequest.body }),
    });
    const verdict = judge({ method: request.method, url: request.url, headers: request.headers, ...(generatedRequest.body === undefined ? {} : { body: generatedRequest.body }) });
    const response = await app.fetch(request);
    await response.arrayBuffer();
    const example = describe(generatedRequest, response.status, verdict);
    const accepted = isAccepted(response.status, verdict);
    if (verdict.allowed && !accepted && (await onlySpellingRefused(app, judge, request, generatedRequest.body, verdict))) {
      note("allowed but refused", SPELLING, example, verdict, response.status, generatedRequest.tag);
    } else if (verdict.allowed && !accepted) note("allowed but refused", generatedRequest.tag, example, verdict, response.status);
    if (!verdict.allowed && accepted) note("forbidden but accepted", generatedRequest.tag, example, verdict, response.status);
    const declared = verdict.operation === undefined
      ? unmatchedAnswers.has(String(response.status))
      : verdict.operation.responses.includes(String(response.status)) || verdict.operation.responses.includes(`${String(response.status)[0]}XX`);
    if (!declared) note("answer not declared", generatedRequest.tag, example, verdict, response.status);
  }

  const disagreements = [...classes.values()];
  return { requests: generated.length, disagreements, unexplained: disagreements.filter((entry) => entry.rule === undefined) };
}

/**
 * Whether the request was refused for the spelling of its integers alone: the same request with
 * them in plain decimal (`verdict.respelled`) is allowed by the schemas and answered by the service.
 */
async function onlySpellingRefused(
  app: { fetch: (request: Request) => Promise<Response> },
  judge: (request: RequestShape) => Verdict,
  request: Request,
  body: string | Uint8Array<ArrayBuffer> | undefined,
  verdict: Verdict,
): Promise<boolean> {
  if (verdict.respelled === undefined) return false;
  const plain = new Request(verdict.respelled.url, { method: request.method, headers: request.headers, ...(body === undefined ? {} : { body }) });
  const plainVerdict = judge({ method: plain.method, url: plain.url, headers: plain.headers, ...(body === undefined ? {} : { body }) });
  const response = await app.fetch(plain);
  await response.arrayBuffer();
  return plainVerdict.allowed && plainVerdict.respelled === undefined && isAccepted(response.status, plainVerdict);
}

/** Whether a rule speaks of the request's operation (or of requests no operation takes) and names the answer given. */
function covers(rule: ExtensionRule, verdict: Verdict, status: number): boolean {
  const operation = verdict.operation === undefined ? rule.operations === undefined : rule.operations?.includes(verdict.operation.id) === true;
  return operation && rule.answers.some((answer) => answer.status === status);
}

/** Whether the service answered the request rather than refusing its form. */
function isAccepted(status: number, verdict: Verdict): boolean {
  if (status < 400 || NOT_ABOUT_FORM.has(status)) return true;
  // 404 from an operation with a path parameter means "no such resource": the request was well-formed.
  return status === 404 && verdict.operation !== undefined && verdict.operation.id.startsWith("getPet");
}

function describe(request: { method: string; path: string; body?: string | Uint8Array<ArrayBuffer> }, status: number, verdict: Verdict): string {
  const body = typeof request.body === "string" ? ` ${request.body.length > 60 ? `${request.body.slice(0, 60)}…` : request.body}` : "";
  return `${request.method} ${request.path}${body} → ${status}; document: ${verdict.allowed ? "allowed" : verdict.reason}`;
}

/** The result as lines for people: every class with its count, example and naming rule. */
export function report(result: CheckResult): string {
  const total = (entries: readonly Disagreement[]) => entries.reduce((sum, entry) => sum + entry.count, 0);
  const kinds = (["allowed but refused", "forbidden but accepted", "answer not declared"] as const)
    .map((kind) => `${kind} ${total(result.disagreements.filter((entry) => entry.kind === kind))}`);
  const lines = [
    `request check: ${result.requests} requests, ${total(result.disagreements)} disagreements in ${result.disagreements.length} classes (${kinds.join(", ")}); ` +
    `${total(result.unexplained)} in ${result.unexplained.length} classes not named in x-request-rules`,
  ];
  for (const entry of [...result.disagreements].sort((a, b) => a.kind.localeCompare(b.kind) || b.count - a.count)) {
    lines.push(`  ${entry.kind}: ${entry.tag}: ${entry.count} (${entry.rule === undefined ? "NOT NAMED in x-request-rules" : `named: ${entry.rule}`})`);
    if (entry.from !== undefined) {
      const from = Object.entries(entry.from).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      lines.push(`      from ${from.map(([tag, count]) => `${tag} ${count}`).join(", ")}`);
    }
    lines.push(`      e.g. ${entry.example}`);
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const path = process.argv[2];
  const result = await checkRequests(path === undefined ? undefined : JSON.parse(readFileSync(path, "utf8")));
  console.log(report(result));
  process.exit(result.unexplained.length === 0 ? 0 : 1);
}
