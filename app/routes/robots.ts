import { publicUrl } from "#app/domain/auth.server.ts";
import { paths } from "#app/lib/paths.ts";
import { notForSearchEngines } from "#app/lib/seo.ts";

/**
 * GET /robots.txt: reviews, companies, managers, searches and the guidelines are for everyone; forms, the account
 * and the JSON API are not for crawlers (pages that are reached anyway say noindex). Names the sitemap index by its
 * absolute address, as the protocol asks.
 */

export function loader(): Response {
  const lines = [
    "User-agent: *",
    ...notForSearchEngines.map((path) => `Disallow: ${path}`),
    "",
    `Sitemap: ${publicUrl().replace(/\/$/, "")}${paths.sitemap()}`,
    "",
  ];
  return new Response(lines.join("\n"), {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
