/**
 * A name or message as the terminal should show it: control characters (C0, DEL and C1, e.g. a
 * newline or the ESC of `\x1b[31m` in a file name) and the bidirectional overrides shown escaped
 * (`\n`, `\u001b`), so each record stays one line and a file name cannot recolour, move or hide
 * text on the terminal. Other text is unchanged.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (ch) => {
    const json = JSON.stringify(ch).slice(1, -1);
    return json !== ch ? json : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
