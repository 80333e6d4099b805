import { describe, expect, test } from "bun:test";
import { readConfig } from "../adapters/server/config.ts";
import { DEFAULT_TIMEOUTS } from "../adapters/_timeouts.ts";

const DEFAULT_EDGE = { publicUrl: "", trustProxy: false, timeouts: DEFAULT_TIMEOUTS, denoServer: "node:http" } as const;

describe("standalone settings", () => {
  test("defaults: port 8080, host 127.0.0.1, file store at data/pets.json, a generated key", () => {
    const result = readConfig({}, []);
    if (!result.ok) throw new Error(result.issues.join("; "));
    expect(result.value).toEqual({
      port: 8080,
      host: "127.0.0.1",
      apiKeys: [expect.stringMatching(/^[A-Za-z0-9_-]{43}$/)],
      keyGenerated: true,
      store: "file",
      dataFile: "data/pets.json",
      databaseUrl: "",
      migrate: true,
      log: "text",
      logHealth: true,
      edge: DEFAULT_EDGE,
      rateLimitSyncMs: 1000,
    });
  });

  test("two generated keys differ", () => {
    const first = readConfig({}, []);
    const second = readConfig({}, []);
    expect(first.ok && second.ok && first.value.apiKeys[0] !== second.value.apiKeys[0]).toBe(true);
  });

  test("environment variables set every setting; API_KEYS is a comma-separated list", () => {
    const result = readConfig({ PORT: "0", HOST: "::1", API_KEYS: "a, b,,c", STORE: "memory", DATA_FILE: "x.json" }, []);
    expect(result).toEqual({
      ok: true,
      value: { port: 0, host: "::1", apiKeys: ["a", "b", "c"], keyGenerated: false, store: "memory", dataFile: "x.json", databaseUrl: "", migrate: true, log: "text", logHealth: true, edge: DEFAULT_EDGE, rateLimitSyncMs: 1000 },
    });
  });

  test("flags mirror the variables and win over them, as --flag value or --flag=value", () => {
    const result = readConfig({ PORT: "1", STORE: "file" }, ["--port", "2", "--store=memory", "--api-keys=k", "--host", "0.0.0.0", "--data-file", "d.json"]);
    expect(result.ok && result.value).toEqual({
      port: 2,
      host: "0.0.0.0",
      apiKeys: ["k"],
      keyGenerated: false,
      secretFlags: ["--api-keys"],
      store: "memory",
      dataFile: "d.json",
      databaseUrl: "",
      migrate: true,
      log: "text",
      logHealth: true,
      edge: DEFAULT_EDGE,
      rateLimitSyncMs: 1000,
    });
  });

  test("MIGRATE is on or off (the server may make and change the store's tables or file, or not); any other value is refused", () => {
    expect(readConfig({ MIGRATE: "off" }, []).ok && readConfig({ MIGRATE: "off" }, [])).toMatchObject({ value: { migrate: false } });
    expect(readConfig({}, ["--migrate", "on"])).toMatchObject({ value: { migrate: true } });
    expect(readConfig({ MIGRATE: "no" }, [])).toEqual({ ok: false, issues: ['MIGRATE must be "on" or "off", got "no"'] });
  });

  test("API_KEYS_FILE names a key file, and then no key is generated; PID_FILE a file for the process id (issue 50)", () => {
    const result = readConfig({ API_KEYS_FILE: "data/keys", PID_FILE: "data/animal-store.pid" }, []);
    expect(result.ok && [result.value.keyFile, result.value.pidFile, result.value.keyGenerated, result.value.apiKeys]).toEqual(["data/keys", "data/animal-store.pid", false, []]);
  });

  test("a secret setting given both itself and as a file is a problem, naming both (issue 50)", () => {
    const both = readConfig({ API_KEYS: "k", DATABASE_URL: "postgres://a/b" }, ["--api-keys-file", "data/keys", "--database-url-file=data/url", "--otel-exporter-otlp-headers=a=b", "--otel-exporter-otlp-headers-file", "h"]);
    expect(both.ok ? [] : both.issues.filter((issue) => issue.includes("are both set")).map((issue) => issue.split(" are")[0])).toEqual([
      "API_KEYS and API_KEYS_FILE",
      "DATABASE_URL and DATABASE_URL_FILE",
      "OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_HEADERS_FILE",
    ]);
  });

  test("the secret settings given as flags are listed once each, to be warned of; their _FILE flags are not secrets (issue 50)", () => {
    const result = readConfig({}, ["--api-keys", "k", "--database-url=postgres://u:p@h/d", "--api-keys", "k2", "--otel-exporter-otlp-traces-headers-file", "f"]);
    expect(result.ok && result.value.secretFlags).toEqual(["--api-keys", "--database-url"]);
  });

  test("a value read from a secret's file stands for the setting (readSecretFiles gives them)", () => {
    const result = readConfig({ STORE: "postgres" }, [], { DATABASE_URL: "postgres://u:p@db/pets" });
    expect(result.ok && result.value.databaseUrl).toBe("postgres://u:p@db/pets");
  });

  test("STORE=postgres takes DATABASE_URL, or --database-url over it", () => {
    const url = "postgres://app:secret@db.internal:5432/pets";
    const fromEnv = readConfig({ STORE: "postgres", DATABASE_URL: url }, []);
    expect(fromEnv.ok && fromEnv.value.store === "postgres" && fromEnv.value.databaseUrl).toBe(url);
    const fromFlag = readConfig({ DATABASE_URL: "postgres://other/db" }, ["--store", "postgres", "--database-url", url]);
    expect(fromFlag.ok && fromFlag.value.databaseUrl).toBe(url);
  });

  test("STORE=postgres without a postgres:// DATABASE_URL is a problem", () => {
    for (const env of [{ STORE: "postgres" }, { STORE: "postgres", DATABASE_URL: "mysql://db/pets" }, { STORE: "postgres", DATABASE_URL: "db:5432" }]) {
      const result = readConfig(env, []);
      expect(result.ok ? [] : result.issues).toContain(
        "STORE=postgres needs DATABASE_URL, a URL such as postgres://user:password@host:5432/database, with @ : / ? # % in the user or password percent-encoded (%40 %3A %2F %3F %23 %25)",
      );
    }
  });

  test("a password with / or % written as it is in DATABASE_URL is refused naming the encoding, never quoting it", () => {
    const issues = (url: string) => {
      const result = readConfig({ STORE: "postgres", DATABASE_URL: url }, []);
      return result.ok ? [] : result.issues;
    };
    expect(issues("postgres://pets:pa/ss@db:5432/pets")).toEqual([
      "STORE=postgres needs DATABASE_URL, a URL such as postgres://user:password@host:5432/database, with @ : / ? # % in the user or password percent-encoded (%40 %3A %2F %3F %23 %25)",
    ]);
    expect(issues("postgres://pets:pa%ss@db:5432/pets")).toEqual([
      'DATABASE_URL\'s user or password holds a "%" that starts no percent-encoded character: write @ : / ? # % in the user or password percent-encoded (%40 %3A %2F %3F %23 %25)',
    ]);
    expect(issues(`postgres://pets:${encodeURIComponent("pa/ss%")}@db:5432/pets`)).toEqual([]);
  });

  test("LOG_FORMAT=json writes JSON Lines; LOG=off, or --log off, turns the access log off", () => {
    const json = readConfig({ LOG_FORMAT: "json" }, []);
    expect(json.ok && json.value.log).toBe("json");
    const off = readConfig({ LOG: "off", LOG_FORMAT: "json" }, []);
    expect(off.ok && off.value.log).toBe("off");
    const flag = readConfig({ LOG: "on" }, ["--log", "off"]);
    expect(flag.ok && flag.value.log).toBe("off");
  });

  test("an unknown LOG or LOG_FORMAT is a problem", () => {
    const result = readConfig({ LOG: "maybe", LOG_FORMAT: "xml" }, []);
    expect(result.ok ? [] : result.issues).toEqual(['LOG must be "on" or "off", got "maybe"', 'LOG_FORMAT must be "text" or "json", got "xml"']);
  });

  test("every bad setting is reported", () => {
    const result = readConfig({ PORT: "70000", STORE: "sql", API_KEYS: "has space" }, ["--colour", "red", "--port"]);
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.issues;
    expect(problems).toContain('PORT must be an integer from 0 to 65535, got "70000"');
    expect(problems).toContain('STORE must be "file", "memory" or "postgres", got "sql"');
    expect(problems.join("\n")).toContain("API_KEYS must be comma-separated bearer tokens");
    expect(problems.join("\n")).toContain('Unknown argument "--colour"');
    expect(problems).toContain("--port needs a value");
  });

  test("PUBLIC_URL, TRUST_PROXY, the three timeouts and DENO_SERVER are read, flags winning", () => {
    const env = { PUBLIC_URL: "https://pets.example/api", TRUST_PROXY: "x-forwarded", HEADER_TIMEOUT: "3", IDLE_TIMEOUT: "9", DENO_SERVER: "node:http" };
    const result = readConfig(env, ["--body-timeout", "7", "--idle-timeout=2", "--deno-server", "Deno.serve"]);
    expect(result.ok && result.value.edge).toEqual({
      publicUrl: "https://pets.example/api",
      trustProxy: "x-forwarded",
      timeouts: { headerSeconds: 3, bodySeconds: 7, idleSeconds: 2 },
      denoServer: "Deno.serve",
    });
  });

  test("TRUST_PROXY=true is refused, naming the two header families a proxy may set", () => {
    const result = readConfig({ TRUST_PROXY: "true" }, []);
    expect(result.ok ? [] : result.issues).toEqual([
      "TRUST_PROXY=true no longer says which header the proxy sets: set TRUST_PROXY=x-forwarded for a proxy that sets X-Forwarded-For (nginx as docs/operating.md shows), or TRUST_PROXY=forwarded for one that sets Forwarded",
    ]);
  });

  test.each(["x-forwarded", "forwarded", "false"] as const)("TRUST_PROXY=%s is read as that header family", (value) => {
    const result = readConfig({ TRUST_PROXY: value }, []);
    expect(result.ok ? result.value.edge.trustProxy : result.issues).toBe(value === "false" ? false : value);
  });

  test("a bad PUBLIC_URL, TRUST_PROXY, timeout or DENO_SERVER is reported", () => {
    const result = readConfig({ PUBLIC_URL: "https://pets.example/", TRUST_PROXY: "yes", BODY_TIMEOUT: "0", DENO_SERVER: "hyper" }, []);
    const problems = result.ok ? [] : result.issues;
    expect(problems).toContain('PUBLIC_URL must not end with "/", got "https://pets.example/"');
    expect(problems).toContain('TRUST_PROXY must be "false", "x-forwarded" or "forwarded", got "yes"');
    expect(problems).toContain('BODY_TIMEOUT must be a whole number of seconds from 1 to 255, got "0"');
    expect(problems).toContain('DENO_SERVER must be "node:http" or "Deno.serve", got "hyper"');
  });
});
