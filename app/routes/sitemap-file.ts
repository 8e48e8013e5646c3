import { promisify } from "node:util";
import zlib from "node:zlib";
import { database } from "#app/db/database.server.ts";
import { publicUrl } from "#app/domain/auth.server.ts";
import { sitemapIds } from "#app/domain/sitemap.server.ts";
import { ApiProblem, apiFailure, readOnlyAction } from "#app/http/api.server.ts";
import { seoMessages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { sitemapFile } from "#app/lib/sitemaps.ts";

const gzip = promisify(zlib.gzip);

/**
 * GET /sitemaps/{companies|managers}-{n}.xml.gz: the pages of one range of ids, gzip-compressed as the protocol
 * allows (a file of 50,000 addresses is about 3 MB of XML, 200 KB compressed).
 */
export async function loader({ params }: { params: Record<string, string | undefined> }): Promise<Response> {
  try {
    const match = /^(companies|managers)-([1-9]\d{0,4})\.xml\.gz$/.exec(params.file ?? "");
    if (!match) throw new ApiProblem(404, seoMessages.noSitemap);
    const kind = match[1] as "companies" | "managers";
    const ids = await sitemapIds(database().db, { kind, number: Number(match[2]) });
    if (ids.length === 0) throw new ApiProblem(404, seoMessages.noSitemap);
    const base = publicUrl().replace(/\/$/, "");
    const page = kind === "companies" ? paths.company : paths.manager;
    const body = await gzip(sitemapFile(ids.map((id) => `${base}${page(id)}`)));
    return new Response(body, {
      headers: { "Content-Type": "application/gzip", "Cache-Control": "public, max-age=3600" },
    });
  } catch (error) {
    return apiFailure(error);
  }
}

export const action = readOnlyAction;
