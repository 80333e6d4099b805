/**
 * @module
 * What a child process prints, gathered as it comes.
 */

/** Collects everything `child` writes to stdout and stderr; the result reads it so far. */
export function captureOutput(child: { stdout: ReadableStream<Uint8Array>; stderr: ReadableStream<Uint8Array> }): () => string {
  let output = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  void collect(child.stdout);
  void collect(child.stderr);
  return () => output;
}
