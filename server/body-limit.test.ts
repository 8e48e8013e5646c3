import { describe, expect, it } from "vitest";
import { maxBodyBytes } from "#app/http/api-request.server.ts";
import { reviewTextLength } from "#app/lib/limits.ts";
import { largestLegitimateForm } from "../tests/e2e/support/contribute.ts";

describe("maxBodyBytes", () => {
  it("takes the largest legitimate form, and not much more", () => {
    const size = Buffer.byteLength(largestLegitimateForm().toString());
    // At least the review text alone: 5000 four-byte characters, each twelve bytes once form-encoded.
    expect(size).toBeGreaterThan(reviewTextLength.max * 12);
    expect(size).toBeLessThanOrEqual(maxBodyBytes);
    // Bounded by that need: room for a field or two the forms may gain, not for an attack.
    expect(maxBodyBytes).toBeLessThan(size * 1.5);
  });
});
