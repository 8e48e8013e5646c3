import { describe, expect, it } from "vitest";
import { failureDetail, failureText } from "./failures.ts";

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
});
