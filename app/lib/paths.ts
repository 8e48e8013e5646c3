/** Every URL of the site is built here, so no component assembles a link by hand. */

// Any control character (C0, DEL, C1), format character (zero-width, bidi), space or separator, and the backslash:
// browsers drop or rewrite these while parsing a Location ("/\t/evil.example" is read as "//evil.example"), and a
// header cannot carry most of them at all.
const unsafeInRedirect = /[\p{Cc}\p{Cf}\p{Z}\s\\]/u;
const thisSite = "http://candor.invalid";

/**
 * The one sanitiser of every "come back here afterwards" target: only a path of this site passes, returned in the
 * URL parser's serialisation (percent-encoded, safe as a Location header); anything else gives `fallback`. A target
 * holding a character that a browser would strip or rewrite is refused rather than cleaned, as no link of the site
 * contains one.
 */
export function safeRedirectTarget(target: unknown, fallback: string): string {
  if (typeof target !== "string" || !target.startsWith("/") || target.startsWith("//")) return fallback;
  if (unsafeInRedirect.test(target)) return fallback;
  let url: URL;
  try {
    url = new URL(target, thisSite);
  } catch {
    return fallback;
  }
  // Dot segments are resolved by the parser: "/.//evil.example" and "/a/..//evil.example" come out as
  // "//evil.example", which a browser reads as another site.
  if (url.origin !== thisSite || url.pathname.startsWith("//")) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Pages of the sign-in flow itself: coming back to one of them after signing in would lead nowhere. */
export const accountFlowPages = new Set([
  "/signin",
  "/signup",
  "/signout",
  "/two-factor",
  "/forgot-password",
  "/reset-password",
  "/verify-email",
]);

/**
 * Where the header's "Sign In" brings a reader back to: the page they are on (path and query), unless it is a page of
 * the sign-in flow or the bare home page, from which signing in leads to the search page as it always has; the
 * sign-in form still passes it through `safeRedirectTarget`.
 */
export function returnTarget(pathname: string, search: string): string | undefined {
  if (accountFlowPages.has(pathname) || (pathname === "/" && search === "")) return undefined;
  return `${pathname}${search}`;
}

export type SearchKind = "company" | "manager";

/** How a list of reviews is sorted and narrowed, as its page's query carries it; newest first is the default. */
export type ReviewListParams = { sort?: string; rating?: number; tag?: string; q?: string };

function listParams(list: ReviewListParams | undefined) {
  if (!list) return {};
  return { sort: list.sort === "newest" ? undefined : list.sort, rating: list.rating, tag: list.tag, q: list.q };
}

function withQuery(path: string, query: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== null && value !== undefined && value !== "") params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export const paths = {
  home: () => "/",
  landing: () => "/landing",
  search: (query: { kind?: SearchKind; country?: string; q?: string; after?: string | null } = {}) =>
    withQuery("/search", {
      kind: query.kind === "manager" ? "manager" : undefined,
      country: query.country,
      q: query.q,
      after: query.after,
    }),
  company: (id: number, before?: string | null, list?: ReviewListParams) =>
    withQuery(`/company/${id}`, { ...listParams(list), before }),
  /** The compare page with these companies or managers, in this order. */
  compare: (kind: "company" | "manager", ids: readonly number[]) =>
    `/compare${ids.length > 0 ? `?${ids.map((id) => `${kind}=${id}`).join("&")}` : ""}`,
  companyManagers: (companyId: number, after?: string | null) => withQuery("/managers", { company: companyId, after }),
  manager: (id: number, before?: string | null, list?: ReviewListParams) =>
    withQuery(`/manager-profile/${id}`, { ...listParams(list), before }),
  /** `country` preselects the new company's country (the one chosen on the search page). */
  addCompany: (country?: string) => withQuery("/company/add", { country }),
  reviewCompany: (companyId: number) => withQuery("/company/review", { company: companyId }),
  addManager: (companyId: number) => withQuery("/manager/add", { company: companyId }),
  addManagerAlone: () => "/manager/addAlone",
  reviewManager: (managerId: number) => withQuery("/manager-review", { manager: managerId }),
  signIn: (redirectTo?: string) => withQuery("/signin", { redirectTo }),
  signUp: (redirectTo?: string) => withQuery("/signup", { redirectTo }),
  signOut: () => "/signout",
  twoFactor: (redirectTo?: string) => withQuery("/two-factor", { redirectTo }),
  forgotPassword: () => "/forgot-password",
  resetPassword: () => "/reset-password",
  verifyEmail: () => "/verify-email",
  account: () => "/account",
  guidelines: () => "/guidelines",
  privacy: () => "/privacy",
  feedback: () => "/feedback",
  apiKnownCities: (country: string) => `/api/v1/countries/${encodeURIComponent(country)}/cities`,
  /** One address for every helpful vote: the request log names no review (decision 0016). */
  helpful: () => "/helpful",
  reportReview: (reviewId: string) => `/reviews/${encodeURIComponent(reviewId)}/report`,
  moderationLog: (before?: number | null) => withQuery("/moderation", { before }),
  moderationQueue: () => "/moderation/queue",
  transparency: () => "/transparency",
  reviewKey: () => "/review-key",
  verifyWork: () => "/verify-work",
  /** A feed of new reviews: of a company or manager (its id), a country (its code), an industry (its section). */
  feed: (
    kind: "company" | "manager" | "country" | "industry",
    key: number | string,
    format: "atom" | "json" = "atom",
  ) => `/feeds/${kind}/${encodeURIComponent(String(key))}.${format}`,
  sitemap: () => "/sitemap.xml",
  sitemapFile: (kind: "companies" | "managers", number: number) => `/sitemaps/${kind}-${number}.xml.gz`,
  verificationKeys: (domain?: string) => withQuery("/.well-known/candor-keys.json", { domain }),
  verificationTokensApi: () => "/api/v1/verification/tokens",
  apiSuggestions: (q: string) => withQuery("/api/v1/companies/suggestions", { q }),
  apiSearch: (kind: SearchKind, country: string, q: string) =>
    withQuery(kind === "manager" ? "/api/v1/managers" : "/api/v1/companies", { country, q }),
} as const;
