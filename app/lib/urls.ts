/**
 * User-supplied web addresses (company website, review-site link, LinkedIn profile). An address
 * without an http(s):// prefix gets one. Only http and https are accepted: javascript:, data: and the like are
 * refused, as are addresses with credentials or without a real host name.
 */
import { getDomain } from "tldts";
import { maxWebAddressLength } from "./limits.ts";

export function normalizeWebAddress(input: string): string | undefined {
  const trimmed = input.trim();
  if (!trimmed || trimmed.length > maxWebAddressLength || /\s/.test(trimmed)) return undefined;
  const hasScheme = /^[a-z][a-z0-9+.-]*:/i.test(trimmed);
  if (hasScheme && !/^https?:\/\//i.test(trimmed)) return undefined;
  const candidate = hasScheme ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.username || url.password) return undefined;
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(url.hostname) || url.hostname.endsWith(".")) return undefined;
  return url.href;
}

/** A LinkedIn profile address, normalised; other hosts are refused. */
export function normalizeLinkedInAddress(input: string): string | undefined {
  const href = normalizeWebAddress(input);
  if (!href) return undefined;
  const host = new URL(href).hostname.toLowerCase();
  return host === "linkedin.com" || host.endsWith(".linkedin.com") ? href : undefined;
}

/**
 * What identifies a company's site: its registrable domain ("https://careers.eu.acme.co.uk/jobs" is "acme.co.uk"),
 * public-suffix aware, so a subdomain or a path of the site is the same site. Hosting platforms listed as public
 * suffixes keep each site apart ("acme.github.io"). A host without one (an IP number) stands for itself, without "www.".
 */
export function websiteKey(href: string): string {
  const host = new URL(href).hostname.toLowerCase();
  return getDomain(host, { allowPrivateDomains: true }) ?? host.replace(/^www\./, "");
}
