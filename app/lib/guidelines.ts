/**
 * The posting guidelines a machine can check (no personal information, no links). Each refusal
 * names the rule broken. Shared by the server, which enforces them, and the browser, which warns while typing.
 * Every check works word by word with simple patterns, so its time grows linearly with the text.
 */
export const guidelineMessages = {
  link: "Remove the link: the posting guidelines allow no links in reviews.",
  email: "Remove the e-mail address: the posting guidelines allow no personal information in reviews.",
  phone: "Remove the phone number: the posting guidelines allow no personal information in reviews.",
  profanity: "Remove the profanity: the posting guidelines allow no profanity in reviews.",
} as const;

const topLevelDomains = new Set(
  "com net org io co dev app info biz me ly gl link site xyz us uk de fr in ca au ru cn".split(" "),
);
const label = /^[a-z0-9-]+$/i;

/** A word stripped of the punctuation that surrounds it in prose: "(see acme.com/jobs)." → "acme.com/jobs". */
function bare(word: string): string {
  return word.replace(/^[("'[<{]+/, "").replace(/[)"'\]>}.,;:!?]+$/, "");
}

function isEmail(word: string): boolean {
  const at = word.indexOf("@");
  if (at <= 0 || at !== word.lastIndexOf("@")) return false;
  const domain = word.slice(at + 1).split(".");
  return (
    domain.length >= 2 &&
    domain.every((part) => part.length > 0 && /^[\p{L}\p{N}-]+$/u.test(part)) &&
    /^\p{L}{2,}$/u.test(domain.at(-1)!)
  );
}

function isLink(word: string): boolean {
  if (/^(?:https?|ftp):\/\//i.test(word) || /^www\./i.test(word)) return true;
  const host = word.split(/[/?#]/, 1)[0]!;
  const labels = host.split(".");
  return (
    labels.length >= 2 && labels.every((part) => label.test(part)) && topLevelDomains.has(labels.at(-1)!.toLowerCase())
  );
}

// Seven or more digits, allowing the usual separators: +1 (555) 123-4567, 0171 234 5678, 555.123.4567.
const phonePattern = /(?:\+|\b)\d(?:[ ().-]{0,3}\d){6,}/g;
// …but a span of years ("2019-2023", "1998 - 2004") is not a phone number, nor is a date ("2025-01-01",
// "01.02.2024", "1 3 2024").
const yearSpan = /^(?:19|20)\d\d\s*[-–]\s*(?:19|20)\d\d$/;
const dateParts = /^(?:(?:19|20)\d\d([-. ])(\d{1,2})\1(\d{1,2})|(\d{1,2})([-. ])(\d{1,2})\5(?:19|20)\d\d)$/;

/** A whole date: year, month, day (or day and month, either way round, then the year), with one separator. */
function isDate(text: string): boolean {
  const parts = dateParts.exec(text);
  if (!parts) return false;
  const [first, second] = (parts[1] ? [parts[2], parts[3]] : [parts[4], parts[6]]).map(Number) as [number, number];
  if (first < 1 || second < 1) return false;
  return parts[1] ? first <= 12 && second <= 31 : Math.min(first, second) <= 12 && Math.max(first, second) <= 31;
}

function hasPhoneNumber(text: string): boolean {
  for (const [candidate] of text.matchAll(phonePattern)) {
    const trimmed = candidate.trim();
    if (!yearSpan.test(trimmed) && !isDate(trimmed)) return true;
  }
  return false;
}

/** The first guideline the text breaks, or undefined. */
export function guidelineViolation(text: string): string | undefined {
  const words = text.split(/\s+/).map(bare).filter(Boolean);
  if (words.some(isEmail)) return guidelineMessages.email;
  if (words.some(isLink)) return guidelineMessages.link;
  if (hasPhoneNumber(text)) return guidelineMessages.phone;
  return undefined;
}
