/**
 * Control characters (C0, DEL and C1) have no place in anything typed into a field, and NUL is refused by PostgreSQL
 * in text: a value that reached it would turn bad input into a 500. Every text input schema refuses them through
 * this one test; multi-line texts keep tabs and line breaks.
 */
const anyControl = /\p{Cc}/u;
const controlButLineBreaks = /[^\P{Cc}\n\r\t]/u;

export function hasControlCharacters(text: string, { multiline = false } = {}): boolean {
  return (multiline ? controlButLineBreaks : anyControl).test(text);
}
