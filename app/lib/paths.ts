/** Every URL of the site is built here, so no component assembles a link by hand. */

export type SearchKind = "company" | "manager";

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
  company: (id: number, before?: string | null) => withQuery(`/company/${id}`, { before }),
  companyManagers: (companyId: number, after?: string | null) => withQuery("/managers", { company: companyId, after }),
  manager: (id: number, before?: string | null) => withQuery(`/manager-profile/${id}`, { before }),
  addCompany: () => "/company/add",
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
  apiSearch: (kind: SearchKind, country: string, q: string) =>
    withQuery(kind === "manager" ? "/api/v1/managers" : "/api/v1/companies", { country, q }),
} as const;
