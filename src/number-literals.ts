/**
 * @module
 * How the top-level numbers of a JSON object were written.
 *
 * `JSON.parse` silently rounds: `9007199254740991.4` and `1.0000000000000001` both come back as
 * integers. Validators that must never round look at the written form too.
 */

const NUMBER_START = /[-0-9]/;
const NUMBER_CHARACTERS = /[-+.eE0-9]/;

/**
 * The source text of each number-valued member of the top-level object in `json`, by member name
 * (the last one wins, as in `JSON.parse`). `json` must already be known to be a valid JSON object.
 */
export function topLevelNumberLiterals(json: string): Map<string, string> {
  const literals = new Map<string, string>();
  let depth = 0;
  let expectingName = false;
  let name = "";
  let i = 0;
  while (i < json.length) {
    const character = json[i]!;
    if (character === '"') {
      const end = endOfString(json, i);
      if (depth === 1 && expectingName) {
        name = JSON.parse(json.slice(i, end)) as string;
        expectingName = false;
      }
      i = end;
      continue;
    }
    if (depth === 1 && !expectingName && NUMBER_START.test(character)) {
      const start = i;
      while (i < json.length && NUMBER_CHARACTERS.test(json[i]!)) i++;
      literals.set(name, json.slice(start, i));
      continue;
    }
    if (character === "{" || character === "[") depth++;
    else if (character === "}" || character === "]") depth--;
    if ((character === "{" && depth === 1) || (character === "," && depth === 1)) expectingName = true;
    i++;
  }
  return literals;
}

/** The index just past the string literal that starts at `start`. */
function endOfString(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length && json[i] !== '"') i += json[i] === "\\" ? 2 : 1;
  return i + 1;
}
