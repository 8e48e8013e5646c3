/** The XML of a sitemap index and of a sitemap file (the sitemaps.org protocol, 0.9). */
import { xmlText } from "./feeds.ts";

const namespace = "http://www.sitemaps.org/schemas/sitemap/0.9";

export function sitemapIndex(fileUrls: readonly string[]): string {
  const entries = fileUrls.map((url) => `  <sitemap><loc>${xmlText(url)}</loc></sitemap>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<sitemapindex xmlns="${namespace}">`,
    ...entries,
    "</sitemapindex>",
    "",
  ].join("\n");
}

export function sitemapFile(pageUrls: readonly string[]): string {
  const entries = pageUrls.map((url) => `  <url><loc>${xmlText(url)}</loc></url>`);
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<urlset xmlns="${namespace}">`, ...entries, "</urlset>", ""].join(
    "\n",
  );
}
