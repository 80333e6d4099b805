/**
 * @module
 * A typed client from the document, proven. Starts the standalone server, generates TypeScript types
 * with `openapi-typescript` from the document it serves (`/v1/openapi.json`, fetched over HTTP),
 * type-checks `client.ts` against them, calls the server through `openapi-fetch` (create, list,
 * get, and three errors: no such pet, a limit out of range, a read-only key's create), and shows
 * that `tsc` refuses `wrong-field.ts`: a create whose categoryId is text, a list with a misspelled
 * parameter, and a list whose limit is text. Installs this folder's tools first. `packaging/run.ts`
 * runs it as one check; alone: `bun packaging/client/check.ts`.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { keyFileOf } from "../../test/keys-suite.ts";
import { startServer } from "../../test/server-process.ts";

const HERE = import.meta.dir;
const BIN = join(HERE, "node_modules", ".bin");
const KEY = "client-key";
const READ_ONLY_KEY = "client-read-only-key";

/** Runs a command to its end: its exit code and everything it printed. */
function run(argv: string[]): { code: number; output: string } {
  const result = Bun.spawnSync(argv, { cwd: HERE, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode ?? 1, output: result.stdout.toString() + result.stderr.toString() };
}

/** Runs a command that must succeed; throws with its output otherwise. */
function succeed(argv: string[]): string {
  const { code, output } = run(argv);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}:\n${output}`);
  return output;
}

function expectSame(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** The whole check; throws with what went wrong, or resolves with a line saying what was shown. */
export async function checkClient(): Promise<string> {
  succeed(["npm", "install", "--no-audit", "--no-fund"]);
  rmSync(join(HERE, "generated"), { recursive: true, force: true });
  const keyFile = keyFileOf([{ name: "client", key: KEY }, { name: "dashboard", key: READ_ONLY_KEY, scope: "read" }]);
  const server = await startServer("bun", { STORE: "memory", API_KEYS_FILE: keyFile });
  try {
    succeed([join(BIN, "openapi-typescript"), `${server.url}/openapi.json`, "-o", "generated/animal-store.ts"]);
    succeed([join(BIN, "tsc"), "-p", "tsconfig.json"]);

    const { useTheApi } = (await import(join(HERE, "client.ts"))) as { useTheApi: (baseUrl: string, key: string, readOnlyKey: string) => Promise<any> };
    const outcomes = await useTheApi(server.url, KEY, READ_ONLY_KEY);
    const pet = { id: outcomes.created.pet.id, name: "Rex", categoryId: 1, status: "available" };
    expectSame("the create", outcomes.created, { status: 201, pet, location: `${server.url}/pets/${pet.id}` });
    expectSame("the list", outcomes.listed, { status: 200, pets: [pet] });
    expectSame("the get", outcomes.fetched, { status: 200, pet });
    expectSame("the missing pet", { status: outcomes.missing.status, code: outcomes.missing.error.code }, { status: 404, code: "not_found" });
    expectSame("the bad limit", { status: outcomes.invalid.status, code: outcomes.invalid.error.code }, { status: 400, code: "invalid_query" });
    expectSame("the read-only key's create", { status: outcomes.readOnly.status, code: outcomes.readOnly.error.code }, { status: 403, code: "insufficient_scope" });

    const wrong = run([join(BIN, "tsc"), "-p", "tsconfig.wrong-field.json", "--pretty", "false"]);
    const errors = wrong.output.split("\n").filter((line) => / error TS\d+:/.test(line));
    const expected = [
      /^wrong-field\.ts\(11,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/,
      /^wrong-field\.ts\(13,\d+\): error TS2561: .*'limt'/,
      /^wrong-field\.ts\(15,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/,
    ];
    if (wrong.code === 0 || errors.length !== expected.length || !expected.every((pattern, i) => pattern.test(errors[i]!))) {
      throw new Error(`tsc should refuse exactly the text categoryId, the "limt" parameter and the text limit of wrong-field.ts, but exited ${wrong.code}:\n${wrong.output}`);
    }
    return `generated from ${server.url}/openapi.json; create, list, get, 404, 400 and the read-only key's 403 answered as typed; tsc refused:\n  ${errors.join("\n  ")}`;
  } finally {
    await server.stop("SIGKILL");
  }
}

if (import.meta.main) {
  try {
    console.log(`PASS a typed client from the document: ${await checkClient()}`);
  } catch (error) {
    console.log(`FAIL a typed client from the document\n${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
