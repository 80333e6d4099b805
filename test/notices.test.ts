import { expect, test } from "bun:test";
import { createNotices, escapeControls } from "../adapters/server/notices.ts";

test("control characters are written as escapes: line breaks, tabs, ESC, DEL, C1 and the Unicode line separators", () => {
  expect(escapeControls("a\nb\r\tc\u001b[31m\u007f\u009b\u2028\u2029 ok é")).toBe("a\\nb\\r\\tc\\x1b[31m\\x7f\\x9b\\u2028\\u2029 ok é");
});

test("a text notice naming a value with a line break stays one line", () => {
  const written: string[] = [];
  const notices = createNotices("text", { out: (text) => written.push(text), err: (text) => written.push(text), dropped: () => 0 });
  notices.info("opened data/a\nanimal-store: forged.json: 0 pets loaded");
  expect(written).toEqual(["opened data/a\\nanimal-store: forged.json: 0 pets loaded\n"]);
});
