/**
 * @module
 * Private to `createApp`: what it refuses of a host, so a mistake is an error at once, or the one 500
 * reported to `onError`, never an answer gone quietly wrong (issue 41): an option it does not know (one
 * that became a plug names the plug), a plug given twice or reporting without a name, and a plug's
 * answer or headers the Fetch API would refuse.
 */
import type { Plug, PlugSetup, PlugSteps } from "../types.ts";
import { refusedHeader } from "./_header-records.ts";

// Options that became plugs, with what to pass instead.
const REPLACED: Readonly<Record<string, string>> = Object.freeze({
  corsOrigins: 'plugs: [cors([...])] (import { cors } from "animal-store/cors")',
  rateLimit: 'plugs: [rateLimit({ requests, seconds })] (import { rateLimit } from "animal-store/rate-limit")',
  referencePage: 'plugs: [referencePage()] (import { referencePage } from "animal-store/reference-page")',
});

/** Throws, naming the option and what to pass instead, when `options` holds a name not in `known`. */
export function refuseUnknownOptions(options: object, known: readonly string[]): void {
  for (const name of Object.keys(options)) {
    if (REPLACED[name] !== undefined) throw new TypeError(`Cannot create app: the option "${name}" is gone; pass ${REPLACED[name]}`);
    if (!known.includes(name)) throw new TypeError(`Cannot create app: unknown option "${name}"; the options are ${known.join(", ")}`);
  }
}

/** Each plug's steps; a plug given twice (by name, or the same plug) is refused, its headers would be sent twice, and so is one that reports without a name. */
export function plugStepsOf(plugs: readonly Plug[], setup: PlugSetup): readonly PlugSteps[] {
  const made = plugs.map((plug) => plug(setup));
  const names = made.flatMap((steps) => steps.name ?? []);
  const named = names.find((name, i) => names.indexOf(name) !== i);
  if (named !== undefined) throw new RangeError(`Cannot create app: the plug "${named}" is given twice in "plugs"; give each plug once`);
  const unnamed = made.findIndex((steps) => steps.report !== undefined && steps.name === undefined);
  if (unnamed !== -1) throw new RangeError(`Cannot create app: plugs[${unnamed}] reports but has no name; give it one (PlugSteps.name), which its report is read under`);
  const again = plugs.findIndex((plug, i) => plugs.indexOf(plug) !== i);
  if (again !== -1) throw new RangeError(`Cannot create app: a plug is given twice in "plugs" (plugs[${plugs.indexOf(plugs[again]!)}] and plugs[${again}])`);
  return made;
}

/** A plug's answer, or a `TypeError` (answered 500, reported) when it is not a `Response`. */
export function plugAnswer(answer: Response): Response {
  // Duck-typed: on Node the answer may be a `FastResponse` or a native `Response`.
  if (typeof answer === "object" && answer !== null && typeof answer.status === "number" && typeof answer.headers?.get === "function") return answer;
  throw new TypeError(`A plug answered with ${answer === null ? "null" : typeof answer}, not a Response`);
}

/** A plug's headers, or a `TypeError` (answered 500, reported) when the Fetch API would refuse one. */
export function plugHeaders(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const refused = refusedHeader(headers);
  if (refused === undefined) return headers;
  throw new TypeError(`A plug gave a header the Fetch API refuses: ${JSON.stringify(refused)} ${JSON.stringify(headers[refused])}`);
}
