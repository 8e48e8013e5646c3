import { describe, expect, it } from "vitest";
import { cleanName, nameSkeleton } from "./names.server.ts";

describe("nameSkeleton", () => {
  it("is the same for names that differ only in case, accents, invisible characters or lookalike letters", () => {
    const acme = nameSkeleton("Twice Listed Acme");
    for (const lookalike of [
      "TWICE LISTED ACME",
      "twice listed acme",
      "Tw\u200Bice Listed Acme",
      "Twic\u0435 Listed Acme",
      "\u202ETwice Listed Acme",
      "\uFF34wice Listed Acme",
    ]) {
      expect(nameSkeleton(lookalike), JSON.stringify(lookalike)).toBe(acme);
    }
    expect(nameSkeleton("Twice Listed Apex")).not.toBe(acme);
  });

  it("cleans a name to NFKC without invisible characters", () => {
    expect(cleanName("\u202E\uFF21cme\u200B  GmbH\u2069 ")).toBe("Acme GmbH");
  });
});
