import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";
import { env } from "#app/lib/env.server.ts";

/**
 * The sitemap of every company and manager page (docs/decisions/0071-a-sitemap-by-id-ranges.md): files of at most
 * 50,000 addresses, each a range of ids, so that a file is one index range scan and the index of files a probe per
 * range, at a million companies as at fifty.
 */
export const sitemapFileSize = 50_000;

export type SitemapKind = "companies" | "managers";
export type SitemapFile = { kind: SitemapKind; number: number };

/**
 * The ids from `from` to `to` with a page to list, in order, at most `limit`. Only managers who show their reviews
 * (the small-team minimum): the others' pages say nothing to find.
 */
async function idsIn(db: Kysely<Database>, kind: SitemapKind, from: number, to: number, limit: number) {
  const rows =
    kind === "companies"
      ? await db
          .selectFrom("companies")
          .select("id")
          .where("id", ">=", from)
          .where("id", "<=", to)
          .orderBy("id")
          .limit(limit)
          .execute()
      : await db
          .selectFrom("managers")
          .select("id")
          .where("review_count", ">=", env().MANAGER_MIN_REVIEWS)
          .where("id", ">=", from)
          .where("id", "<=", to)
          .orderBy("id")
          .limit(limit)
          .execute();
  return rows.map((row) => row.id);
}

function range(number: number): [number, number] {
  return [(number - 1) * sitemapFileSize + 1, number * sitemapFileSize];
}

/** The files, numbered from 1, of every id range that holds at least one page to list. */
export async function sitemapFiles(db: Kysely<Database>): Promise<SitemapFile[]> {
  const files: SitemapFile[] = [];
  for (const kind of ["companies", "managers"] as const) {
    const table = kind === "companies" ? "companies" : "managers";
    const top = await db
      .selectFrom(table)
      .select((eb) => eb.fn.max("id").as("id"))
      .executeTakeFirst();
    const last = Math.ceil(Number(top?.id ?? 0) / sitemapFileSize);
    for (let number = 1; number <= last; number += 1) {
      const [from, to] = range(number);
      if ((await idsIn(db, kind, from, to, 1)).length > 0) files.push({ kind, number });
    }
  }
  return files;
}

/** The ids a file lists, in order; empty for a file that lists nothing (or does not exist). */
export async function sitemapIds(db: Kysely<Database>, file: SitemapFile): Promise<number[]> {
  const [from, to] = range(file.number);
  return idsIn(db, file.kind, from, to, sitemapFileSize);
}
