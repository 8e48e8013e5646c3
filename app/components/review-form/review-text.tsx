import { useState } from "react";
import { FieldProblemText, problemAttributes, fieldClass } from "#app/components/form.tsx";
import type { FieldProblem } from "#app/lib/form-refusal.ts";
import { guidelineViolation } from "#app/lib/guidelines.ts";
import { reviewTextLength } from "#app/lib/limits.ts";

/** The review text with the number of characters left. */
export function ReviewText({
  label,
  defaultValue = "",
  error,
}: {
  label: string;
  defaultValue?: string | undefined;
  error?: FieldProblem | undefined;
}) {
  const [length, setLength] = useState(defaultValue.length);
  // The guidelines a machine can check, said while typing; the server refuses the same.
  const [warning, setWarning] = useState<string | undefined>(undefined);
  return (
    <div className={fieldClass(error)}>
      <label htmlFor="review_text">{label}</label>
      <p id="review_text-hint" className="hint">
        Describe what you saw and how it affected your work. No names, links, e-mail addresses or phone numbers.
      </p>
      <textarea
        id="review_text"
        name="review_text"
        rows={8}
        maxLength={reviewTextLength.max}
        minLength={6}
        required
        defaultValue={defaultValue}
        {...problemAttributes(error, "review_text-error", "review_text-hint", "review_text-count")}
        onChange={(event) => {
          setLength(event.currentTarget.value.length);
          setWarning(guidelineViolation(event.currentTarget.value));
        }}
      />
      <p id="review_text-count" className="hint counter" aria-live="polite">
        {(reviewTextLength.max - length).toLocaleString("en")} characters left
      </p>
      <FieldProblemText id="review_text-error" problem={error} />
      <p className="field-warning" role="status">
        {/* Not twice: a refusal says the submitted text's problem beside the field, or in the message box (`true`). */}
        {warning && error !== true && warning !== error ? warning : null}
      </p>
    </div>
  );
}
