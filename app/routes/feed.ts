import { database } from "#app/db/database.server.ts";
import { type FeedScope, feedOf } from "#app/domain/feeds.server.ts";
import { publicUrl } from "#app/domain/auth.server.ts";
import { ApiProblem, publicRead, readOnlyAction } from "#app/http/api.server.ts";
import { atomFeed, jsonFeed } from "#app/lib/feeds.ts";
import { feedMessages } from "#app/lib/messages.ts";
import { maxId } from "#app/lib/params.ts";
import { paths } from "#app/lib/paths.ts";

/** The scope and format a feed's address names (`company/4.atom`, `country/DE.json`), or undefined. */
function parseFeed(kind: string | undefined, file: string | undefined) {
  const match = /^([A-Za-z0-9]{1,10})\.(atom|json)$/.exec(file ?? "");
  if (!match) return undefined;
  const [, key, format] = match as unknown as [string, string, "atom" | "json"];
  let scope: FeedScope | undefined;
  if (kind === "company" || kind === "manager") {
    const id = /^[1-9]\d*$/.test(key) ? Number(key) : NaN;
    if (id <= maxId) scope = { kind, id };
  } else if (kind === "country" && /^[A-Z]{2}$/.test(key)) scope = { kind, code: key };
  else if (kind === "industry" && /^[A-Z]$/.test(key)) scope = { kind, code: key };
  return scope && { scope, format };
}

function keyOf(scope: FeedScope): number | string {
  return "id" in scope ? scope.id : scope.code;
}

function pageOf(scope: FeedScope): string {
  if (scope.kind === "company") return paths.company(scope.id);
  if (scope.kind === "manager") return paths.manager(scope.id);
  if (scope.kind === "country") return paths.search({ country: scope.code });
  return paths.search();
}

/**
 * GET /feeds/{company|manager|country|industry}/{key}.{atom|json}: the newest published reviews there, as an Atom
 * 1.0 feed or a JSON Feed (docs/decisions/0070-follow-by-feed-not-by-e-mail.md). Kept like a page: it changes only
 * when a batch is published.
 */
export const loader = publicRead(async ({ params }) => {
  const asked = parseFeed(params.kind, params.file);
  const feed = asked && (await feedOf(database().db, asked.scope));
  if (!asked || !feed) throw new ApiProblem(404, feedMessages.notFound);
  const base = publicUrl().replace(/\/$/, "");
  const document = {
    title: (feed.scope.kind === "country" ? feedMessages.placeTitle : feedMessages.title)(feed.name),
    selfUrl: `${base}${paths.feed(feed.scope.kind, keyOf(feed.scope), asked.format)}`,
    pageUrl: `${base}${pageOf(feed.scope)}`,
    subjectUrl: (subject: { kind: "company" | "manager"; id: number }) =>
      `${base}${subject.kind === "company" ? paths.company(subject.id) : paths.manager(subject.id)}`,
    entries: feed.entries,
  };
  return asked.format === "atom"
    ? { type: "application/atom+xml; charset=utf-8", text: atomFeed(document) }
    : { type: "application/feed+json; charset=utf-8", text: jsonFeed(document) };
}, 300);

export const action = readOnlyAction;
