/**
 * @module
 * The conformance checks, by tools nobody on the project wrote. Run from the repository root with
 * `npm run test:conformance`, which installs them here first.
 *
 * 1. The OpenAPI document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator), passes
 *    `redocly lint` with its recommended rules (two findings ignored on purpose, see
 *    `.redocly.lint-ignore.yaml`), and Spectral with `spectral:oas` and the OWASP API Security
 *    ruleset finds no error and no warning (rules switched off only in `spectral.yaml`, each with
 *    its reason).
 * 2. The request check (`request-check/`): requests generated from the document, judged by its
 *    schemas alone and sent to the service, disagree only in classes `x-request-rules` names.
 * 3. Every response the real servers send in the HTTP suite conforms to the document (Prism proxy).
 * 4. A contract test generated from the document (Portman) passes when Newman runs it against the
 *    real servers.
 * 5. A mock made from the document (Prism mock, static and dynamic) answers every error answer the
 *    document declares with that status and one of its codes (`prism-mock.ts`).
 * Ends with `conformance: N passed, M failed`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { OPENAPI_JSON } from "../src/mod.ts";
import type { Runtime } from "../test/server-process.ts";
import { askMock } from "./prism-mock.ts";
import { checkRequests, report } from "./request-check/check.ts";
import { startServer } from "../test/server-process.ts";
import { tempDataFile } from "../test/temp.ts";

const HERE = import.meta.dir;
const ROOT = join(HERE, "..");
const BIN = join(HERE, "node_modules", ".bin");
const OUT = join(HERE, ".out");
const DOCUMENT = join(OUT, "openapi.json");
const RUNTIMES: Runtime[] = ["bun", "deno", "node"];
const KEY = "conformance-key";

let passed = 0;
let failed = 0;
function record(name: string, ok: boolean, detail = ""): void {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail === "" ? "" : `\n${detail}`}`);
}

function run(argv: string[], cwd: string, env: Record<string, string> = {}): { code: number; output: string } {
  const result = Bun.spawnSync(argv, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode ?? 1, output: result.stdout.toString() + result.stderr.toString() };
}

mkdirSync(OUT, { recursive: true });
writeFileSync(DOCUMENT, OPENAPI_JSON);

// 1. The document itself.
const validation = await new Validator().validate(JSON.parse(OPENAPI_JSON));
record("the document is valid OpenAPI 3.1 (openapi-schema-validator)", validation.valid, validation.valid ? "" : JSON.stringify(validation.errors, null, 2));
const lint = run([join(BIN, "redocly"), "lint", ".out/openapi.json", "--format", "stylish"], HERE);
record("the document passes redocly lint (recommended rules)", lint.code === 0, lint.code === 0 ? "" : lint.output);
// --fail-severity=warn: a warning fails too; the ruleset file is the one place a rule is switched off.
const spectral = run([join(BIN, "spectral"), "lint", ".out/openapi.json", "--ruleset", "spectral.yaml", "--fail-severity=warn", "--format", "text"], HERE);
record("the document passes Spectral (spectral:oas and the OWASP API Security ruleset): no error, no warning", spectral.code === 0, spectral.code === 0 ? "" : spectral.output);

// 2. What a tool reading the document predicts, against what the service answers.
const requestCheck = await checkRequests();
record(
  `the request check: every disagreement between the schemas and the service is a class x-request-rules names (${requestCheck.requests} requests)`,
  requestCheck.unexplained.length === 0,
  report(requestCheck),
);
// The check has teeth. Without the rule that names it, the spelling class is a failure again.
const withoutSpelling = JSON.parse(OPENAPI_JSON) as { "x-request-rules": { rules: { id: string }[] } };
withoutSpelling["x-request-rules"].rules = withoutSpelling["x-request-rules"].rules.filter((rule) => rule.id !== "integer-spelling");
const spellingCaught = (await checkRequests(withoutSpelling)).unexplained.map((entry) => entry.tag);
record(
  "the request check fails a document whose x-request-rules leaves out integer-spelling (it names the class integer not in plain decimal)",
  spellingCaught.includes("integer not in plain decimal"),
  spellingCaught.join(", "),
);
// And a schema that says more than the service takes is a failure no rule excuses: limit up to 1000.
const widened = JSON.parse(OPENAPI_JSON) as { paths: Record<string, Record<string, { parameters: { name: string; schema: Record<string, unknown> }[] }>> };
widened.paths["/pets"]!["get"]!.parameters.find((parameter) => parameter.name === "limit")!.schema["maximum"] = 1000;
const widenedCaught = (await checkRequests(widened)).unexplained.map((entry) => entry.tag);
record(
  "the request check fails a document whose limit goes up to 1000 (it names limit: above range)",
  widenedCaught.includes("limit: above range"),
  widenedCaught.join(", "),
);

// 5 (run early: it needs no server). A mock made from the document, as a client's developer makes one.
for (const dynamic of [false, true]) {
  const answers = await askMock(DOCUMENT, JSON.parse(OPENAPI_JSON), dynamic);
  const wrong = answers.filter((answer) => !answer.ok);
  const named = ["GET /pets without a key", "POST /pets (Prefer: code=415)", "GET /pets/7 (Prefer: code=404)"];
  const asked = named.every((request) => answers.some((answer) => answer.request === request));
  record(
    `Prism's ${dynamic ? "dynamic" : "static"} mock answers each of the document's ${answers.length} error answers with its own status and code (401 without a key, 415, 404 included)`,
    wrong.length === 0 && asked,
    wrong.map((answer) => `  ${answer.request}: ${answer.status} ${answer.body}`).join("\n"),
  );
}
// The check has teeth: without their examples and pinned schemas (the document before issue 35), the
// static mock answers 401, 415 and 404 with a 400 body.
const withoutExamples = JSON.parse(OPENAPI_JSON, (key, value) =>
  key === "examples" && typeof value === "object" && !Array.isArray(value) ? undefined : key === "schema" && value?.allOf !== undefined ? value.allOf[0] : value);
const bare = join(OUT, "openapi-without-error-examples.json");
writeFileSync(bare, JSON.stringify(withoutExamples));
const bareWrong = (await askMock(bare, withoutExamples, false)).filter((answer) => !answer.ok).map((answer) => answer.request);
record(
  "the mock check fails a document whose error answers have no examples and no pinned code and status (401 without a key is among the wrong answers)",
  bareWrong.includes("GET /pets without a key"),
  bareWrong.join(", "),
);

// 3. The HTTP suite through Prism, on every runtime and store.
const prism = run([process.execPath, "test", "./conformance/prism.test.ts"], ROOT, { CONFORMANCE_RUNTIMES: RUNTIMES.join(",") });
const prismPassed = Number(/^\s*(\d+) pass$/m.exec(prism.output)?.[1] ?? 0);
const prismFailed = Number(/^\s*(\d+) fail$/m.exec(prism.output)?.[1] ?? 0);
passed += prismPassed;
failed += prismFailed + (prism.code !== 0 && prismFailed === 0 ? 1 : 0);
console.log(`${prism.code === 0 ? "PASS" : "FAIL"} the HTTP suite through Prism: ${prismPassed} passed, ${prismFailed} failed`);
if (prism.code !== 0) console.log(prism.output.split("\n").filter((line) => !line.startsWith("(pass)")).join("\n"));

// 4. Portman's generated contract tests, run by Newman.
for (const runtime of RUNTIMES) {
  for (const store of ["memory", "file"] as const) {
    const settings = store === "file" ? { STORE: "file", DATA_FILE: tempDataFile() } : { STORE: "memory" };
    const server = await startServer(runtime, { API_KEYS: KEY, ...settings });
    try {
      // getPet is called with petId 1 (portman-config.json): make it exist.
      await fetch(`${server.url}/pets`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: '{"name":"Rex","categoryId":1}',
      });
      const collection = join(OUT, `collection-${runtime}-${store}.json`);
      const report = join(OUT, `newman-${runtime}-${store}.json`);
      const generate = run(
        [join(BIN, "portman"), "-l", DOCUMENT, "-b", server.url, "-c", "portman-config.json", "-o", collection, "--logAssignVariables=false"],
        HERE,
      );
      if (generate.code !== 0) {
        record(`Portman generates the contract tests (${runtime}, ${store})`, false, generate.output);
        continue;
      }
      const newman = run(
        [join(BIN, "newman"), "run", collection, "--env-var", `bearerToken=${KEY}`, "--reporters", "cli,json", "--reporter-json-export", report],
        HERE,
      );
      const stats = (JSON.parse(readFileSync(report, "utf8")) as { run: { stats: { assertions: { total: number; failed: number } } } }).run.stats;
      const ok = newman.code === 0 && stats.assertions.failed === 0 && stats.assertions.total > 0;
      record(
        `Newman runs Portman's contract tests on ${runtime} with the ${store} store: ${stats.assertions.total} assertions, ${stats.assertions.failed} failed`,
        ok,
        ok ? "" : newman.output,
      );
    } finally {
      await server.stop("SIGKILL");
    }
  }
}

console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
