import { describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { createOutput } from "../adapters/server/output.ts";

/** A stream whose writes fail with `EPIPE` once `closed`, as a pipe whose reader exited, calling back and emitting `error`. */
function fakeStream() {
  const events = new EventEmitter();
  const written: string[] = [];
  const stream = {
    closed: false,
    written,
    writes: 0,
    write(text: string, done: (error?: Error | null) => void) {
      stream.writes++;
      if (!stream.closed) return void (written.push(text), done(null));
      const error = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
      done(error);
      events.emit("error", error);
    },
    on: (event: "error", listener: (error: Error) => void) => events.on(event, listener),
  };
  return stream;
}

describe("the server's output", () => {
  test("a closed stdout: its lines are counted as dropped, not written again, and stderr says so once", () => {
    const stdout = fakeStream();
    const stderr = fakeStream();
    const output = createOutput(stdout, stderr);
    output.out("one\n");
    stdout.closed = true;
    output.out("two\nthree\n");
    output.out("four\n");
    output.out("five\n");
    expect(stdout.written).toEqual(["one\n"]);
    expect(stdout.writes).toBe(2);
    expect(output.dropped()).toBe(4);
    expect(stderr.written).toEqual(["animal-store: stdout is closed (EPIPE); its lines are dropped from now on and counted in animal_store_log_lines_dropped_total\n"]);
  });

  test("a closed stderr: its lines are counted, and stdout carries on with no line about it", () => {
    const stdout = fakeStream();
    const stderr = fakeStream();
    const output = createOutput(stdout, stderr);
    stderr.closed = true;
    output.err("error one\n");
    output.err("error two\n");
    output.out("request\n");
    expect(output.dropped()).toBe(2);
    expect(stdout.written).toEqual(["request\n"]);
  });
});
