import { database } from "#app/db/database.server.ts";
import { publicUrl } from "#app/domain/auth.server.ts";
import { sitemapFiles } from "#app/domain/sitemap.server.ts";
import { publicRead, readOnlyAction } from "#app/http/api.server.ts";
import { paths } from "#app/lib/paths.ts";
import { sitemapIndex } from "#app/lib/sitemaps.ts";

/** GET /sitemap.xml: the sitemap index, naming one gzip file per range of company or manager ids. */
export const loader = publicRead(async () => {
  const base = publicUrl().replace(/\/$/, "");
  const files = await sitemapFiles(database().db);
  const urls = files.map((file) => `${base}${paths.sitemapFile(file.kind, file.number)}`);
  return { type: "application/xml; charset=utf-8", text: sitemapIndex(urls) };
}, 3600);

export const action = readOnlyAction;
