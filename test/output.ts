/**
 * @module
 * What a child process prints, gathered as it comes.
 */

/**
 * Collects everything `child` writes to stdout and stderr; the result reads it so far, and its
 * `stdout` reads what came on stdout alone.
 */
export function captureOutput(child: { stdout: ReadableStream<Uint8Array>; stderr: ReadableStream<Uint8Array> }): (() => string) & { stdout(): string } {
  let output = "";
  let stdout = "";
  const collect = async (stream: ReadableStream<Uint8Array>, alone: boolean) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      output += text;
      if (alone) stdout += text;
    }
  };
  void collect(child.stdout, true);
  void collect(child.stderr, false);
  return Object.assign(() => output, { stdout: () => stdout });
}
