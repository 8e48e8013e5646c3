import { createRequire } from "node:module";
import commonFreeMail from "email-providers/all.json" with { type: "json" };
import { getDomain } from "tldts";

/**
 * E-mail addresses as mailboxes, and the providers whose addresses prove nothing about an employer: what a work
 * address must not be (docs/decisions/0058-a-badge-counts-mailboxes.md).
 *
 * Two lists, each a package pinned to one version and updated by bumping it:
 * - `email-providers`: free-mail services (about 8,800 domains: Gmail, Outlook, Proton, GMX, Yahoo, iCloud…);
 * - `mailchecker`: throwaway and forwarding services (about 56,000 domains: Mailinator and the like, and the alias
 *   services that forward to any mailbox: DuckDuckGo's duck.com, Firefox Relay's mozmail.com, addy.io, SimpleLogin),
 *   with monthly releases, no dependency and no install script.
 * A larger community list of free-mail domains (`free-email-domains-list`) was measured and left out: it also lists
 * employers (comcast.com, verizon.com, att.com, stanford.edu), whose people could then never verify.
 */

const require = createRequire(import.meta.url);
// CommonJS: its list itself, without its address check (ours is zod's).
const forwardingOrThrowaway = (require("mailchecker") as { blacklist(): Set<string> }).blacklist();
const freeMail = new Set<string>(commonFreeMail);

/**
 * Services that neither pinned list names, each measured missing: free-mail services with their own domains
 * (Tutanota, Posteo, Fastmail, Mailfence, Zoho Mail, Proton's Swiss domain and others people pick for privacy) and
 * SimpleLogin's newer alias domains. Drop an entry once a list carries it.
 */
const unlisted = new Map<string, PersonalProvider>([
  ...[
    "tutanota.com",
    "tutanota.de",
    "tutamail.com",
    "tuta.io",
    "tuta.com",
    "posteo.de",
    "posteo.net",
    "posteo.at",
    "posteo.ch",
    "posteo.eu",
    "posteo.org",
    "fastmail.com",
    "mailfence.com",
    "zohomail.com",
    "zohomail.eu",
    "zohomail.in",
    "proton.ch",
    "disroot.org",
    "riseup.net",
    "startmail.com",
    "kolabnow.com",
    "kolabnow.ch",
    "countermail.com",
    "onionmail.org",
  ].map((domain) => [domain, "free-mail"] as const),
  ...["simplelogin.fr", "8alias.com", "dralias.com", "silomails.com"].map(
    (domain) => [domain, "forwarding-or-throwaway"] as const,
  ),
]);

/** The registrable domain of a host or web address ("mail.eu.example.co.uk" → "example.co.uk"), public-suffix aware. */
export function registrableDomain(hostOrUrl: string): string | undefined {
  const domain = getDomain(hostOrUrl.trim().toLowerCase());
  return domain && /^[a-z0-9.-]+$/.test(domain) ? domain : undefined;
}

/** The host of an address, lower-cased, without a final dot. */
export function hostOf(address: string): string {
  return address
    .slice(address.lastIndexOf("@") + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, "");
}

/** Providers that deliver every spelling of a local part with or without its dots to one mailbox. */
const dotsIgnoredBy = new Map([
  ["gmail.com", "gmail.com"],
  ["googlemail.com", "gmail.com"],
]);

/**
 * The mailbox an address reaches, as one spelling: what counts as one person. Case is ignored (every provider
 * delivers "Jane" and "jane" alike), a sub-address is dropped ("jane+anything", RFC 5233, which Gmail, Google
 * Workspace, Microsoft 365, iCloud, Fastmail and Proton deliver to "jane"), and so are dots where the provider
 * ignores them (Gmail: "j.a.n.e" is "jane"; Google Workspace and the others keep them, so they are kept there).
 */
export function mailboxOf(address: string): string {
  const at = address.lastIndexOf("@");
  const host = hostOf(address);
  let local = address.slice(0, at).trim().toLowerCase();
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  const canonicalHost = dotsIgnoredBy.get(host);
  if (canonicalHost) return `${local.replaceAll(".", "")}@${canonicalHost}`;
  return `${local}@${host}`;
}

/** Why addresses of a provider prove nothing about an employer. */
export type PersonalProvider = "free-mail" | "forwarding-or-throwaway";

/**
 * Whether the address belongs to a free-mail, forwarding or throwaway service: its host or any domain above it, down
 * to the registrable one, is listed ("x.relay.firefox.com" is Firefox Relay's, "privaterelay.appleid.com" Apple's).
 */
export function personalProviderOf(address: string): PersonalProvider | undefined {
  const host = hostOf(address);
  const floor = registrableDomain(host) ?? host;
  for (let domain = host; ; domain = domain.slice(domain.indexOf(".") + 1)) {
    if (forwardingOrThrowaway.has(domain)) return "forwarding-or-throwaway";
    if (freeMail.has(domain)) return "free-mail";
    const provider = unlisted.get(domain);
    if (provider) return provider;
    if (domain === floor || !domain.includes(".")) return undefined;
  }
}
