import type { ServerBuild } from "react-router";

/**
 * What the request log says of a request's address (decision 0051): its route's pattern, never the ids in it. Every
 * segment that is not a word of some route's path (a company's or manager's number, a review's id, a country code,
 * a hashed asset's name) is written as `:id`, for every method: "company 4's page was read at 10:02" would tell
 * what a reader read, and, beside anything else dated, who they were.
 */
export function staticSegments(build: Pick<ServerBuild, "routes">): Set<string> {
  const words = new Set<string>();
  for (const route of Object.values(build.routes)) {
    for (const segment of route?.path?.split("/") ?? []) {
      if (segment && !segment.startsWith(":") && segment !== "*") words.add(segment.replace(/\?$/, ""));
    }
  }
  return words;
}

/** `path` (without its query) with every segment that `words` does not know written as `:id`. */
export function pathWithoutIds(path: string, words: ReadonlySet<string>): string {
  return path
    .split("/")
    .map((segment) => {
      if (segment === "") return segment;
      // React Router's data requests add ".data" to the page's address.
      const data = segment.endsWith(".data") ? ".data" : "";
      const word = data ? segment.slice(0, -data.length) : segment;
      return words.has(word) || (data && word === "_root") ? segment : `:id${data}`;
    })
    .join("/");
}
