/**
 * @module
 * The fairness check the HTTP benchmark runs before measuring: every target must answer the
 * benchmark's own requests as the project does (status, body, and the headers the interface fixes),
 * and the peers must refuse a few bad requests as it does (status, error code, the error object's
 * fields and those headers). A peer that skipped work the project does would win for nothing.
 */
import { CREATE_BODY, GET_ID, KEY } from "./fixtures.ts";

/** One request of the check. */
export interface Probe {
  readonly name: string;
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly authorization?: string;
  readonly body?: string;
  /** Sent to the limit servers too: one of the requests wrk sends, which they answer precomputed. */
  readonly measured: boolean;
}

const KEYED = `Bearer ${KEY}`;

/** The probes for each benchmark scenario; a server shared by several scenarios gets each probe once. */
export const PROBES: Record<string, readonly Probe[]> = {
  list: [
    { name: "list", method: "GET", path: "/pets?limit=20", authorization: KEYED, measured: true },
    { name: "list without a key", method: "GET", path: "/pets?limit=20", measured: false },
    { name: "list with an unknown key", method: "GET", path: "/pets?limit=20", authorization: "Bearer not-the-key", measured: false },
    { name: "list with limit=0", method: "GET", path: "/pets?limit=0", authorization: KEYED, measured: false },
  ],
  get: [
    { name: "get", method: "GET", path: `/pets/${GET_ID}`, authorization: KEYED, measured: true },
    { name: "get of no such pet", method: "GET", path: "/pets/999999", authorization: KEYED, measured: false },
    { name: "get of pet 0", method: "GET", path: "/pets/0", authorization: KEYED, measured: false },
  ],
  sold: [{ name: "sold list", method: "GET", path: "/pets?status=sold&limit=20", authorization: KEYED, measured: true }],
  create: [
    { name: "create", method: "POST", path: "/pets", authorization: KEYED, body: CREATE_BODY, measured: true },
    { name: "create without a name", method: "POST", path: "/pets", authorization: KEYED, body: '{"categoryId":1}', measured: false },
  ],
};

/** The headers compared; absolute URLs in them are compared with the server's own origin taken out. */
const HEADERS = ["location", "link", "deprecation", "sunset", "www-authenticate"];

/** What of an answer must match the project's. */
async function digest(baseUrl: string, probe: Probe): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {};
  if (probe.authorization !== undefined) headers["authorization"] = probe.authorization;
  if (probe.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(baseUrl + probe.path, { method: probe.method, headers, body: probe.body ?? null });
  const origin = new URL(baseUrl).origin;
  const seen: Record<string, unknown> = { status: response.status };
  // The media type is fixed by the interface, a charset parameter is not.
  seen["content-type"] = response.headers.get("content-type")?.split(";")[0]?.trim();
  for (const name of HEADERS) seen[name] = response.headers.get(name)?.replaceAll(origin, "{origin}") ?? null;
  const text = await response.text();
  if (response.status < 400) {
    seen["body"] = text;
    return seen;
  }
  // Error messages are each framework's own; the error object's shape and code are the interface's.
  const body = JSON.parse(text) as Record<string, unknown>;
  seen["error object"] = { fields: Object.keys(body).sort(), code: body["code"], status: body["status"], message: typeof body["message"] };
  return seen;
}

/** What of each probe's answer is compared, by probe. */
export type Answers = Map<Probe, Record<string, unknown>>;

/** A server's answers to the probes, sent one after another (a create changes what follows). */
export async function answersOf(baseUrl: string, probes: readonly Probe[]): Promise<Answers> {
  const answers: Answers = new Map();
  for (const probe of probes) answers.set(probe, await digest(baseUrl, probe));
  return answers;
}

/** Where a target's answers differ from the project's, one line each; empty when it answers alike. */
export function differences(project: Answers, target: Answers): string[] {
  const found: string[] = [];
  for (const [probe, actual] of target) {
    for (const [name, value] of Object.entries(project.get(probe) ?? {})) {
      if (JSON.stringify(actual[name]) !== JSON.stringify(value)) {
        found.push(`${probe.name}: ${name} ${JSON.stringify(actual[name])}, the project ${JSON.stringify(value)}`);
      }
    }
  }
  return found;
}
