/**
 * @module
 * Private: the one entry the project's own server (`adapters/server/`) takes from the core beyond its
 * public surface (`src/mod.ts`), so the server reads as an example of using the library and what it
 * needs besides is listed here, not spread over paths (`test/source-rules.test.ts` keeps it so). Not a
 * package entry point: a host never needs it. It sits beside what it names, not in `_internal/`,
 * which imports nothing above it.
 */
export { isBearerToken } from "./api-keys/mod.ts";
export { _answerNowOf, _appAnsweringNow } from "./_internal/_answer-now.ts";
export { FORBIDDEN_IN_HEADER_VALUE, HEADER_NAME } from "./_internal/_header-records.ts";
export { publicUrlProblem } from "./public-origin.ts";
export { ROUTES } from "./routes.ts";
export { rawTarget, splitUrl } from "./_internal/_request-target.ts";
