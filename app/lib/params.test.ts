import { describe, expect, it } from "vitest";
import { parseId } from "./params.ts";

describe("parseId", () => {
  it("accepts positive integers", () => {
    expect(parseId("1")).toBe(1);
    expect(parseId("2147483647")).toBe(2147483647);
  });

  it("refuses anything else", () => {
    for (const value of [null, undefined, "", "0", "-1", "01", "1.5", "1e3", "12abc", " 1", "2147483648"]) {
      expect(parseId(value)).toBeUndefined();
    }
  });
});
