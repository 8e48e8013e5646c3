import { describe, expect, it } from "vitest";
import { maxBodyBytes } from "#app/lib/api-request.server.ts";
import { largestLegitimateForm } from "../tests/e2e/support/contribute.ts";

describe("maxBodyBytes", () => {
  it("takes the largest legitimate form, and not much more", () => {
    const size = Buffer.byteLength(largestLegitimateForm().toString());
    expect(size).toBeGreaterThan(70_000);
    expect(size).toBeLessThanOrEqual(maxBodyBytes);
    // Bounded by that need: room for a field or two the forms may gain, not for an attack.
    expect(maxBodyBytes).toBeLessThan(size * 1.5);
  });
});
