/**
 * Case- and accent-folded text for search (docs/data-model.md): "München" and "munchen" fold alike.
 * Computed in TypeScript at write time and for every search term, so both engines compare plain text.
 */
export function fold(text: string): string {
  return (
    text
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .replace(/ß/g, "ss")
      .replace(/æ/g, "ae")
      .replace(/œ/g, "oe")
      .replace(/ø/g, "o")
      .replace(/đ/g, "d")
      .replace(/ł/g, "l")
      .replace(/ı/g, "i")
      // Control characters (NUL among them, which PostgreSQL refuses in text) match nothing anyone typed.
      .replace(/\p{Cc}/gu, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/** Escapes LIKE wildcards so a term matches literally (used with `escape '\'`). */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (char) => `\\${char}`);
}
