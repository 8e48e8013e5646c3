import { describe, expect, it } from "vitest";
import { minuteOf } from "#app/lib/logger.server.ts";
import { pathWithoutIds, staticSegments } from "./request-log.ts";

const build = {
  routes: {
    root: { id: "root", path: "" },
    company: { id: "company", parentId: "root", path: "company/:companyId" },
    review: { id: "review", parentId: "root", path: "company/review" },
    report: { id: "report", parentId: "root", path: "reviews/:reviewId/report" },
    cities: { id: "cities", parentId: "root", path: "api/v1/countries/:country/cities" },
    lang: { id: "lang", parentId: "root", path: "help/:lang?/faq" },
  },
} as never;

describe("the request log's address", () => {
  // Live: with the segment kept as it came (`words.has(word) || true`), every expectation with :id fails.
  it("keeps the words of the routes' paths and writes every other segment as :id, for pages and data requests", () => {
    const words = staticSegments(build);
    expect(pathWithoutIds("/company/4", words)).toBe("/company/:id");
    expect(pathWithoutIds("/company/4.data", words)).toBe("/company/:id.data");
    expect(pathWithoutIds("/company/review", words)).toBe("/company/review");
    expect(pathWithoutIds("/reviews/aZ_3kQ9mP2xW7vB1nL5tYc/report", words)).toBe("/reviews/:id/report");
    expect(pathWithoutIds("/reviews/report/report", words)).toBe("/reviews/report/report");
    expect(pathWithoutIds("/api/v1/countries/US/cities", words)).toBe("/api/v1/countries/:id/cities");
    expect(pathWithoutIds("/_root.data", words)).toBe("/_root.data");
    expect(pathWithoutIds("/assets/entry-C1x9.js", words)).toBe("/:id/:id");
    expect(pathWithoutIds("/", words)).toBe("/");
    expect(pathWithoutIds("/help/faq", words)).toBe("/help/faq");
  });

  it("dates a line to the minute", () => {
    expect(minuteOf(Date.UTC(2026, 11, 2, 15, 3, 59, 999))).toBe("2026-12-02T15:03Z");
  });
});
