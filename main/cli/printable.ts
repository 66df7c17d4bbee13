/** A name or message with control characters (a newline in a file name) shown escaped, so each record stays one line. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (ch) => JSON.stringify(ch).slice(1, -1));
}
