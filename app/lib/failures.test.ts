import { describe, expect, it } from "vitest";
import { failureDetail, failureText, fetchFailureReason } from "./failures.ts";

describe("failures", () => {
  it("says what could not be loaded, with a reason of ours, as the spec's catalogue writes it", () => {
    expect(failureText("companies", "other")).toBe("Error loading companies: Something went wrong, please try again");
    expect(failureText("managers", "unavailable")).toBe(
      "Error loading managers: Candor is briefly unavailable. Please try again in a few seconds.",
    );
    expect(failureText("suggestions", "network")).toBe("Error loading suggestions: Check your network connection");
    expect(failureText("insert", "other")).toBe("Error inserting data: Something went wrong, please try again");
    expect(failureText("signin", "other")).toBe("Error context; signin: Something went wrong, please try again");
  });

  it("says a failed search of companies without a message, as the spec does", () => {
    expect(failureText("search", "unavailable")).toBe("Error searching companies");
    // The reason is then said apart, so the reader still learns whether to try again now or in a moment.
    expect(failureDetail("search", "unavailable")).toBe(
      "Candor is briefly unavailable. Please try again in a few seconds.",
    );
    expect(failureDetail("companies", "unavailable")).toBeUndefined();
  });

  it("tells a fetch that got no answer from an answer that was an error", () => {
    expect(fetchFailureReason(0, new TypeError("Failed to fetch"))).toBe("network");
    expect(fetchFailureReason(503, new Error("HTTP 503"))).toBe("unavailable");
    expect(fetchFailureReason(500, new Error("HTTP 500"))).toBe("other");
    expect(fetchFailureReason(200, new SyntaxError("Unexpected token"))).toBe("other");
  });
});
