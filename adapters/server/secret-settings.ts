/**
 * @module
 * Secret settings read from files: `DATABASE_URL_FILE`, `OTEL_EXPORTER_OTLP_HEADERS_FILE` and
 * `OTEL_EXPORTER_OTLP_TRACES_HEADERS_FILE` name a file holding the setting's value (trimmed), as the
 * official postgres and mysql images take `*_FILE`, so a Docker or Kubernetes secret never passes
 * through the environment or the command line, where other users' `ps` and `/proc` can read it. Each
 * file gets the checks of the server's own secrets (`_files/secret-file.ts`): a regular file, no link,
 * FIFO or device, at most 4096 bytes, that no other user may read or change. `API_KEYS_FILE` is a
 * key file of its own format, read by `key-file.ts`.
 */
import type { Validation } from "../../src/mod.ts";
import type { SettingOf } from "./config.ts";
import { readSecret } from "../_files/secret-file.ts";
import { errorCode } from "../_files/error-code.ts";
import { SECRET_SETTINGS } from "./settings.ts";
import { capabilityProblem } from "./key-file.ts";

/** The values of the secret settings given as files, by the setting's variable; or a problem per file that cannot be used. */
export async function readSecretFiles(setting: SettingOf): Promise<Validation<Record<string, string>>> {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  for (const name of SECRET_SETTINGS.filter((name) => name !== "API_KEYS")) {
    const path = setting(`${name}_FILE`);
    if (path === undefined) continue;
    const read = await readSecret(path).catch((error: unknown) => ({ kind: "unusable" as const, problem: capabilityProblem(error, path) ?? String(errorCode(error) ?? error) }));
    if (read.kind === "found" && read.text !== "") values[name] = read.text;
    else problems.push(`${name}_FILE "${path}" cannot be used: ${read.kind === "missing" ? "there is no such file" : read.kind === "found" ? "it is empty" : read.problem}`);
  }
  return problems.length === 0 ? { ok: true, value: values } : { ok: false, issues: problems };
}

/** The warning for a secret setting given on the command line (`--api-keys`), naming the setting that keeps it in a file instead. */
export function secretFlagWarning(flag: string): string {
  const variable = flag.slice(2).toUpperCase().replaceAll("-", "_");
  return `animal-store: ${flag} on the command line can be read by every user of this machine (ps, /proc); put it in a file of mode 600 and set ${variable}_FILE instead`;
}
