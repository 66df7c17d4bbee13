// What any output may pass on of a string it did not write itself (a file name, an id or a
// message from the gateway, storage or a card): everything but the characters a terminal acts on
// or that reorder what is shown. One function for people's lines (printable) and one for JSON
// (printableJson), used by every command of the CLI and by the support log.

/**
 * The characters no output passes on raw: C0 controls and DEL, C1 controls (U+0080–U+009F:
 * terminals read U+009B as CSI, U+0085 as a new line), the bidirectional controls (Unicode's
 * Bidi_Control: U+061C, U+200E, U+200F, the embeddings and overrides U+202A–U+202E, the isolates
 * U+2066–U+2069: U+202E shows what follows right to left) and the line and paragraph separators
 * U+2028 and U+2029.
 */
// eslint-disable-next-line no-control-regex
export const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `\u` and four lowercase hex digits for the UTF-16 unit `ch` (every UNSAFE_CHARS character is one unit). */
const uEscape = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The short escapes people read in a line: a newline as `\n`, a tab as `\t`, and the like. */
const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/**
 * A name or message as a human-readable line shows it: every UNSAFE_CHARS character escaped
 * (`\n`, `\r`, `\t`, `\b`, `\f` as such, any other as `\u001b`, `\u009b`, `\u202e` …), so each
 * record stays one line and nothing it holds can clear, recolour, move, hide or reverse text on
 * the terminal. Other text, a backslash included, is unchanged.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE_CHARS, (ch) => SHORT[ch] ?? uEscape(ch));
}

/**
 * `value` as one line of JSON (JSON.stringify, with `replacer` when given), every UNSAFE_CHARS
 * character in it written as a `\u` sequence: the C0 controls JSON.stringify writes as `\n`,
 * `\t` … too, and the C1, bidirectional and separator characters it leaves raw. The same value
 * when parsed. With `indent` (spaces), indented over lines as JSON.stringify indents: a raw line
 * feed in its output is then one of those lines' ends, never a string's (JSON escapes those).
 * Throws what JSON.stringify throws (a cycle, a BigInt).
 */
export function printableJson(
  value: unknown,
  replacer?: (key: string, value: unknown) => unknown,
  indent?: number,
): string {
  return printableJsonText(JSON.stringify(value, replacer, indent) ?? 'null', indent);
}

/**
 * JSON text `json` written as printableJson writes the value it holds, without parsing it: for a
 * document built as text elsewhere (SQLite's JSON functions, which escape the C0 controls only),
 * where parsing it whole to write it again costs more than building it (`status --json` at
 * 10,000 files). Equal to printableJson's output when `json` is laid out as JSON.stringify lays
 * it out (compact, or indented by `indent` spaces) and escapes as it does or with the short
 * escapes and lowercase `\u00xx` that SQLite writes. `json` must be valid JSON; nothing is checked.
 */
export function printableJsonText(json: string, indent?: number): string {
  // Left to right, each backslash starts one escape: `\\` is taken whole, so `\\n` stays text.
  return json
    .replace(/\\(["\\/bfnrt])/g, (escape: string, c: string) =>
      c === '"' || c === '\\' || c === '/' ? escape : uEscape(JSON.parse(`"${escape}"`) as string),
    )
    .replace(UNSAFE_CHARS, (ch) => (ch === '\n' && indent ? ch : uEscape(ch)));
}
