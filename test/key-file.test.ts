import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { createKeyRing, keyFileLine, parseKeyFile } from "../src/mod.ts";

const hex = (key: string) => createHash("sha256").update(key).digest("hex");
const NOW = Date.parse("2026-06-01T00:00:00Z");

describe("the key file's lines (src/api-keys/key-file.ts)", () => {
  test("a name, the key's hash or the key, and optional scope and expiry; comments, blank lines, spaces and tabs", () => {
    const text = [
      "# The shop's keys. Each line: name, key (or sha256:<hash>), fields.",
      "",
      `shop       sha256:${hex("s3cret")}`,
      `reports\tsha256:${hex("r3ports").toUpperCase()}\tscope=read   # the dashboard`,
      "   ",
      "plain      a-plain-key expires=2026-12-31T23:00:00+01:00 scope=write",
      "",
    ].join("\n");
    const parsed = parseKeyFile(text, NOW);
    if (!parsed.ok) throw new Error(parsed.issues.join("\n"));
    expect(parsed.value.size).toBe(3);
    // Each found by its key, the plain one too (kept only as its hash), with its name, scope and expiry.
    const keys = createKeyRing(parsed.value);
    const found = (key: string) => keys.keyOf(new Request("http://x/", { headers: { authorization: `Bearer ${key}` } })).key;
    expect([found("s3cret"), found("r3ports"), found("a-plain-key")]).toEqual([
      { name: "shop", scope: "write" },
      { name: "reports", scope: "read" },
      { name: "plain", scope: "write", expiresAt: Date.parse("2026-12-31T22:00:00Z") },
    ]);
  });

  test("keyFileLine writes the line a file takes back: the hash, never the key", () => {
    const line = keyFileLine({ name: "reports", key: "r3ports", scope: "read", expires: "2027-01-01T00:00:00Z" });
    expect(line).toBe(`reports sha256:${hex("r3ports")} scope=read expires=2027-01-01T00:00:00Z`);
    expect(keyFileLine({ name: "shop", key: "s3cret", scope: "write" })).toBe(`shop sha256:${hex("s3cret")}`);
    const parsed = parseKeyFile(`${line}\n`, NOW);
    const keys = createKeyRing(parsed.ok ? parsed.value : []);
    expect(keys.keyOf(new Request("http://x/", { headers: { authorization: "Bearer r3ports" } })).key).toEqual({ name: "reports", scope: "read", expiresAt: Date.parse("2027-01-01T00:00:00Z") });
    expect(() => keyFileLine({ name: "a b", key: "k" })).toThrow("Cannot write a key file's line: the name must be");
    expect(() => keyFileLine({ name: "a", key: "k y" })).toThrow("bearer token");
  });

  // The issue's bad input, each refused with its line number and never echoing a key or its hash.
  test.each([
    ["a duplicate name", `a sha256:${hex("k1")}\n# gap\na sha256:${hex("k2")}\n`, 'line 3: the name "a" is already line 1\'s'],
    ["a duplicate key, once plain and once hashed", `a k1\nb sha256:${hex("k1")}\n`, 'line 2: the same key as line 1 ("a")'],
    ["a malformed hash", "a sha256:12ab\n", 'line 1: "sha256:" must be followed by the key\'s SHA-256 as 64 hexadecimal digits, got 4 characters'],
    ["a hash with a letter past f", `a sha256:${"g".repeat(64)}\n`, "line 1: \"sha256:\" must be followed by the key's SHA-256 as 64 hexadecimal digits, got 64 characters that are not all hexadecimal digits"],
    ["an unknown field", "a k1 role=admin\n", 'line 1: unknown field "role=admin"; the fields are scope=read (or write) and expires=<RFC 3339 time>'],
    ["a field with no value sign", "a k1 read\n", 'line 1: unknown field "read"'],
    ["an unknown scope", "a k1 scope=admin\n", 'line 1: unknown scope "admin"; the scopes are read and write (the default)'],
    ["a field twice", "a k1 scope=read scope=write\n", "line 1: the field scope is given twice"],
    ["an expiry that is no RFC 3339 time", "a k1 expires=2026-13-01T00:00:00Z\n", 'line 1: the expiry must be an RFC 3339 time such as 2026-12-31T00:00:00Z (or with an offset, +02:00), got "2026-13-01T00:00:00Z"'],
    ["a date without a time", "a k1 expires=2027-01-01\n", "line 1: the expiry must be an RFC 3339 time"],
    ["an expiry in the past for every key", "a k1 expires=2026-01-01T00:00:00Z\nb k2 expires=2026-05-01T00:00:00Z\n", "every key in it has expired (the last at 2026-05-01T00:00:00.000Z), so no request would be accepted"],
    ["a key a bearer token cannot carry", "a k\u00e9y\n", "line 1: the key holds characters a bearer token cannot carry"],
    ["a key with a quote", 'a "k1"\n', "line 1: the key holds characters a bearer token cannot carry"],
    ["a name with other characters", "a/b k1\n", 'line 1: the name must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, got "a/b"'],
    ["a name without a key", "lonely\n", 'line 1: "lonely" has no key'],
    ["CRLF line ends", "# keys\r\na k1\r\n", "line 1: the line ends with a carriage return (CRLF); save the file with LF line ends"],
    ["a byte order mark", "\ufeffa k1\n", "line 1: the file starts with a byte order mark (U+FEFF); save it as UTF-8 without one"],
    ["a 10 MB line", `a k1\n${"x".repeat(10_000_000)}\n`, "line 2: the line is longer than 4096 bytes"],
    ["no key at all", "# nothing yet\n\n", "it holds no key"],
  ])("refuses %s", (_, text, problem) => {
    const parsed = parseKeyFile(text, NOW);
    expect(parsed.ok).toBe(false);
    const issues = parsed.ok ? [] : parsed.issues;
    expect(issues[0]).toStartWith(problem);
    expect(issues.join("\n")).not.toContain(hex("k1"));
    expect(issues.join("\n")).not.toContain("k1 ");
  });

  test("an expiry in the past for some keys is taken: those keys answer 401 saying they expired", () => {
    expect(parseKeyFile("old k1 expires=2026-01-01T00:00:00Z\nnew k2\n", NOW).ok).toBe(true);
  });

  test("lists at most 20 problems, then counts the rest", () => {
    const parsed = parseKeyFile(Array.from({ length: 30 }, (_, i) => `bad/${i} k${i}`).join("\n"), NOW);
    const issues = parsed.ok ? [] : parsed.issues;
    expect(issues.length).toBe(21);
    expect(issues[20]).toBe("and 10 more lines with problems");
  });
});
