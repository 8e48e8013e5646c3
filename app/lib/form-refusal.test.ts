import { describe, expect, it } from "vitest";
import { correctFields, formRefusal } from "./form-refusal.ts";

describe("formRefusal", () => {
  it("says a single refused field's message once, in the message box, and marks the field", () => {
    expect(formRefusal([{ field: "review_text", message: "Write more." }])).toEqual({
      formError: "Write more.",
      fieldErrors: { review_text: true },
    });
  });

  it("points at the highlighted fields when several are refused, keeping each field's first message", () => {
    const refusal = formRefusal([
      { field: "tags.0", message: "Choose tags from the list." },
      { field: "tags.1", message: "Another tag message." },
      { field: "review_text", message: "Write more." },
    ]);
    expect(refusal).toEqual({
      formError: correctFields,
      fieldErrors: { tags: "Choose tags from the list.", review_text: "Write more." },
    });
  });

  it("counts two messages of one field as one refusal, saying the first", () => {
    const refusal = formRefusal([
      { field: "tags", message: "Choose at least one tag." },
      { field: "tags.2", message: "Choose tags from the list." },
    ]);
    expect(refusal).toEqual({ formError: "Choose at least one tag.", fieldErrors: { tags: true } });
  });
});
