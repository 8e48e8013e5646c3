/**
 * The Atom 1.0 (RFC 4287) and JSON Feed 1.1 documents of a feed of reviews (app/domain/feeds.server.ts). Plain
 * strings: both formats are small, and escaping five characters needs no library.
 */
import { feedMessages } from "./messages.ts";

export type FeedDocumentEntry = {
  reviewId: string;
  subject: { kind: "company" | "manager"; id: number; name: string };
  month: string;
  score: number;
  tags: string[];
  text: string;
};

export type FeedDocument = {
  /** The feed's title, and its address and its page's, absolute. */
  title: string;
  selfUrl: string;
  pageUrl: string;
  /** An entry's subject page, absolute. */
  subjectUrl: (subject: FeedDocumentEntry["subject"]) => string;
  entries: FeedDocumentEntry[];
};

const xmlEscapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Text for an XML element or attribute: markup characters escaped, characters XML 1.0 forbids left out. */
export function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/[&<>"']/g, (character) => xmlEscapes[character]!);
}

/** A month (YYYY-MM) as the instant its first day began: no entry says more than its card does. */
function monthInstant(month: string): string {
  return `${month}-01T00:00:00Z`;
}

/** The newest month of the entries; an empty feed says the Unix epoch rather than a moment nothing happened in. */
function updated(entries: readonly FeedDocumentEntry[]): string {
  const newest = entries.reduce((latest, entry) => (entry.month > latest ? entry.month : latest), "1970-01");
  return monthInstant(newest);
}

function entryId(document: FeedDocument, entry: FeedDocumentEntry): string {
  return `${document.subjectUrl(entry.subject)}#review-${entry.reviewId}`;
}

export function atomFeed(document: FeedDocument): string {
  const entries = document.entries.map((entry) =>
    [
      "  <entry>",
      `    <id>${xmlText(entryId(document, entry))}</id>`,
      `    <title>${xmlText(feedMessages.entryTitle(entry.score, entry.subject.name))}</title>`,
      `    <updated>${monthInstant(entry.month)}</updated>`,
      `    <link rel="alternate" type="text/html" href="${xmlText(document.subjectUrl(entry.subject))}"/>`,
      ...entry.tags.map((tag) => `    <category term="${xmlText(tag)}"/>`),
      `    <content type="text">${xmlText(entry.text)}</content>`,
      "  </entry>",
    ].join("\n"),
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">',
    `  <id>${xmlText(document.selfUrl)}</id>`,
    `  <title>${xmlText(document.title)}</title>`,
    `  <subtitle>${xmlText(feedMessages.subtitle)}</subtitle>`,
    `  <updated>${updated(document.entries)}</updated>`,
    `  <link rel="self" type="application/atom+xml" href="${xmlText(document.selfUrl)}"/>`,
    `  <link rel="alternate" type="text/html" href="${xmlText(document.pageUrl)}"/>`,
    "  <author><name>Candor</name></author>",
    ...entries,
    "</feed>",
    "",
  ].join("\n");
}

export function jsonFeed(document: FeedDocument): string {
  return JSON.stringify({
    version: "https://jsonfeed.org/version/1.1",
    title: document.title,
    description: feedMessages.subtitle,
    home_page_url: document.pageUrl,
    feed_url: document.selfUrl,
    language: "en",
    authors: [{ name: "Candor" }],
    items: document.entries.map((entry) => ({
      id: entryId(document, entry),
      url: document.subjectUrl(entry.subject),
      title: feedMessages.entryTitle(entry.score, entry.subject.name),
      content_text: entry.text,
      date_published: monthInstant(entry.month),
      tags: entry.tags,
    })),
  });
}
