import { describe, expect, it } from "vitest";
import { escapeLike, fold } from "./fold.ts";

describe("fold", () => {
  it("folds case and accents so munchen finds München", () => {
    expect(fold("München")).toBe("munchen");
    expect(fold("ÉCOLE Polytechnique")).toBe("ecole polytechnique");
    expect(fold("Straße")).toBe("strasse");
    expect(fold("Łódź")).toBe("lodz");
  });

  it("collapses white space", () => {
    expect(fold("  Acme \t  Corp ")).toBe("acme corp");
  });
});

describe("escapeLike", () => {
  it("escapes LIKE wildcards and the escape character", () => {
    expect(escapeLike("100%_a\\b")).toBe("100\\%\\_a\\\\b");
  });
});

describe("fold of control characters", () => {
  it("turns NUL and other control characters into spaces, which PostgreSQL text accepts", () => {
    expect(fold("a\u0000b\u0007c")).toBe("a b c");
  });
});
