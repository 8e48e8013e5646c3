import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { returnTarget, safeRedirectTarget } from "./paths.ts";

const site = "https://candor.example";
const fallback = "/search";

/**
 * How a lenient browser reads a Location: the WHATWG parser strips leading and trailing C0 controls and spaces,
 * removes every tab, CR and LF, and treats a backslash as a slash. Whatever it makes of the answer must stay here.
 */
function browserReading(location: string): URL {
  const cleaned = location
    // eslint-disable-next-line no-control-regex -- the C0 controls are what a browser strips
    .replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "")
    .replace(/[\t\n\r]/g, "")
    .replaceAll("\\", "/");
  return new URL(cleaned, site);
}

// Characters that have fooled redirect checks: separators, controls, Unicode spaces, slashes, dots, "@", ":".
const tricky = fc.constantFrom(
  "/",
  "\\",
  "\t",
  "\n",
  "\r",
  "\u0000",
  " ",
  "\u3000",
  "\u00a0",
  "\u2028",
  "\u200b",
  "\u202e",
  "\ufeff",
  "%09",
  "%2f",
  "%5c",
  ".",
  "@",
  ":",
  "?",
  "#",
  "evil.example",
  "http:",
  "javascript:",
);
const candidate = fc.oneof(
  fc
    .array(fc.oneof(tricky, fc.string({ unit: "grapheme", maxLength: 3 })), { maxLength: 12 })
    .map((parts) => parts.join("")),
  fc.string({ unit: "binary", maxLength: 40 }),
);

describe("safeRedirectTarget", () => {
  it("keeps the site's own paths, with their query", () => {
    expect(safeRedirectTarget("/company/12?before=abc", fallback)).toBe("/company/12?before=abc");
    expect(safeRedirectTarget("/search?kind=manager&q=a%20b", fallback)).toBe("/search?kind=manager&q=a%20b");
    expect(safeRedirectTarget("/company/add", fallback)).toBe("/company/add");
  });

  it("refuses the targets the review found and their relatives", () => {
    for (const bad of [
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r\n/evil.example",
      "/\u3000/evil.example",
      "/\u00a0/evil.example",
      "\t//evil.example",
      " //evil.example",
      "//evil.example",
      "/\\evil.example",
      "https://evil.example",
      "javascript:alert(1)",
      "/a\u0000b",
      "/\u202e/",
      "/.//evil.example",
      "/..//evil.example",
      "/%2e//evil.example",
      "/%2E%2E//evil.example",
      "/a/..//evil.example",
      "/a/b/../..//evil.example",
      "",
      null,
      undefined,
    ]) {
      expect(safeRedirectTarget(bad, fallback), JSON.stringify(bad)).toBe(fallback);
    }
  });

  it("never answers a target that a browser would take off the site, or that a header cannot carry", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          candidate,
          candidate.map((rest) => `/${rest}`),
        ),
        (target) => {
          const answer = safeRedirectTarget(target, fallback);
          // Visible ASCII only: no control, no space, nothing a header refuses or a browser drops.
          expect(answer).toMatch(/^\/(?!\/)[\x21-\x7e]*$/);
          expect(answer.includes("\\")).toBe(false);
          expect(browserReading(answer).origin).toBe(site);
          expect(new URL(answer, site).origin).toBe(site);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("is idempotent: a kept target passes through unchanged the second time", () => {
    fc.assert(
      fc.property(
        candidate.map((rest) => `/${rest}`),
        (target) => {
          const once = safeRedirectTarget(target, fallback);
          expect(safeRedirectTarget(once, fallback)).toBe(once);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("returnTarget", () => {
  it("brings a reader back to the page and query they signed in from", () => {
    expect(returnTarget("/company/7", "?before=abc")).toBe("/company/7?before=abc");
    expect(returnTarget("/company/review", "?company=7")).toBe("/company/review?company=7");
  });

  it("leads nowhere back into the sign-in flow", () => {
    for (const page of ["/signin", "/signup", "/signout", "/two-factor", "/forgot-password", "/reset-password"]) {
      expect(returnTarget(page, "?redirectTo=/company/7")).toBeUndefined();
    }
  });

  it("leaves signing in from the bare home page leading to the search page", () => {
    expect(returnTarget("/", "")).toBeUndefined();
    expect(returnTarget("/", "?country=US&q=acme")).toBe("/?country=US&q=acme");
  });
});
