import { accountFlowPages } from "./paths.ts";

/**
 * Where search engines are not sent: forms, the account, the moderators' queue, the JSON API. robots.txt disallows
 * them, and a page among them that is reached anyway (a link from elsewhere) answers `X-Robots-Tag: noindex`.
 */
export const notForSearchEngines: readonly string[] = [
  "/account",
  // The sign-in flow's own pages, as the header's way back knows them.
  ...accountFlowPages,
  "/company/add",
  "/company/review",
  "/manager/",
  "/manager-review",
  "/review-key",
  "/verify-work",
  "/reviews/",
  "/feedback",
  "/helpful",
  "/moderation/queue",
  "/api/v1/",
];

export function isForSearchEngines(path: string): boolean {
  return !notForSearchEngines.some((prefix) => path.startsWith(prefix));
}
