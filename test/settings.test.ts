import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { usage } from "../adapters/server/command-line.ts";
import { readConfig } from "../adapters/server/config.ts";
import { SETTINGS } from "../adapters/server/settings.ts";
import packageJson from "../package.json" with { type: "json" };

const ROOT = join(import.meta.dir, "..");

// What postgres.js reads besides the settings: PG* (PGHOST, PGPASSWORD, …), and USER, USERNAME or
// LOGNAME for a DATABASE_URL without a user name.
const POSTGRES_CLIENT_VARIABLES = ["PG*", "USER", "USERNAME", "LOGNAME"];
/**
 * OpenTelemetry's, as one prefix: the `OTEL_*` settings, those the OTLP exporter reads itself
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `_TIMEOUT`) and `OTEL_DENO`, which start-deno.ts reads.
 */
const OPEN_TELEMETRY_PREFIX = "OTEL_*";

/** The rows of the configuration table in the page that documents the settings: variable, flag, default. */
function documentedSettings(): string[][] {
  const page = ["docs/running.md", "README.md"].map((file) => join(ROOT, file)).find((file) => {
    try {
      return readFileSync(file, "utf8").includes("| Variable | Flag | Default |");
    } catch {
      return false;
    }
  });
  if (page === undefined) throw new Error("no page has the configuration table (| Variable | Flag | Default |)");
  const lines = readFileSync(page, "utf8").split("\n");
  const start = lines.findIndex((line) => line.startsWith("| Variable | Flag | Default |"));
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, 4).map((cell) => cell.trim().replaceAll("`", "")));
  }
  return rows;
}

describe("one table of settings", () => {
  test("the documented configuration table lists exactly the settings, in order, with their flags and defaults", () => {
    const expected = SETTINGS.map((setting) => [setting.variable, setting.flag, setting.default ?? "unset"]);
    expect(documentedSettings()).toEqual(expected);
  });

  test("every setting's flag is read by readConfig, and every default is the one readConfig uses", () => {
    for (const setting of SETTINGS) {
      const result = readConfig({}, [setting.flag, setting.default ?? ""]);
      expect(result.ok ? [] : result.issues.filter((issue) => issue.startsWith("Unknown argument"))).toEqual([]);
    }
    const unset = readConfig({}, []);
    const flagged = readConfig({}, SETTINGS.flatMap((setting) => (setting.default === undefined ? [] : [setting.flag, setting.default])));
    if (!unset.ok || !flagged.ok) throw new Error("the defaults are not valid settings");
    expect({ ...flagged.value, apiKeys: [] }).toEqual({ ...unset.value, apiKeys: [] });
  });

  test("--help lists every flag with its variable, default and summary", () => {
    const text = usage();
    for (const setting of SETTINGS) {
      expect(text).toMatch(new RegExp(`--${setting.flag.slice(2)} ${setting.variable} +${(setting.default ?? "unset").replace(".", "\\.")} +${setting.summary.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    }
  });

  test("Deno may read exactly the settings' variables (OpenTelemetry's as OTEL_*) and postgres.js's: npm run start:deno's --allow-env (deno task start runs the same, deno-task.test.ts)", () => {
    const allowed = /--allow-env=(\S+)/.exec(packageJson.scripts["start:deno"])?.[1]?.split(",") ?? [];
    const settings = SETTINGS.map((setting) => setting.variable).filter((variable) => !variable.startsWith(OPEN_TELEMETRY_PREFIX.slice(0, -1)));
    expect(allowed.toSorted()).toEqual([...settings, OPEN_TELEMETRY_PREFIX, ...POSTGRES_CLIENT_VARIABLES].toSorted());
  });
});
