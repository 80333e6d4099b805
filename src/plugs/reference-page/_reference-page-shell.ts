/**
 * @module
 * Private to the reference page: writing text as POSIX shell words, so that a curl example pasted
 * into a shell passes each argument whole, whatever a URL, a document or a key holds.
 */

/** Text as it goes between single quotes: each `'` closes the quotes, is escaped and reopens them. */
export function inSingleQuotes(text: string): string {
  return text.replaceAll("'", "'\\''");
}

/** Text as one shell word, in single quotes: the shell expands nothing in it. */
export function shellWord(text: string): string {
  return `'${inSingleQuotes(text)}'`;
}
