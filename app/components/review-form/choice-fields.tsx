import { FieldProblemText, problemAttributes } from "#app/components/form.tsx";
import type { FieldProblem } from "#app/lib/form-refusal.ts";
import { scaleLabels } from "#app/lib/ratings.ts";

type FieldError = { error?: FieldProblem | undefined };

/**
 * One criterion on the 1–5 scale, each value named (Awful, Ok, Good, Great, Awesome): one Tab stop, the arrow keys
 * move between values. On a phone the question and its five values share one line; the words then show once, in
 * the scale's key above the questions, and stay in each value's accessible name.
 */
export function RatingInput({
  name,
  label,
  defaultValue,
  error,
}: { name: string; label: string; defaultValue?: string | undefined } & FieldError) {
  const errorId = `${name}-error`;
  return (
    <fieldset
      id={`${name}-field`}
      className={error ? "rating-input invalid" : "rating-input"}
      aria-describedby={problemAttributes(error, errorId)["aria-describedby"]}
    >
      <legend>{label}</legend>
      <div className="rating-options">
        {scaleLabels.map((scaleLabel, index) => {
          const value = String(index + 1);
          return (
            <label key={value} className={`rating-option v${value}`}>
              <input
                type="radio"
                name={name}
                value={value}
                defaultChecked={defaultValue === value}
                required
                // On a phone only the number shows; the name says the word too ("4 Great").
                aria-label={`${value} ${scaleLabel}`}
              />
              <span>
                <strong>{value}</strong> <small className="scale-word">{scaleLabel}</small>
              </span>
            </label>
          );
        })}
      </div>
      <FieldProblemText id={errorId} problem={error} />
    </fieldset>
  );
}

/** A Yes/No question as two cards; choosing one deselects the other (the spec's toggling cards). */
export function YesNoCards({
  name,
  question,
  defaultValue,
  error,
}: { name: string; question: string; defaultValue?: string | undefined } & FieldError) {
  const errorId = `${name}-error`;
  return (
    <fieldset
      id={`${name}-field`}
      className={error ? "yes-no invalid" : "yes-no"}
      aria-describedby={problemAttributes(error, errorId)["aria-describedby"]}
    >
      <legend>{question}</legend>
      <div className="yes-no-options">
        {(["Yes", "No"] as const).map((answer) => (
          <label key={answer} className="yes-no-card">
            <input type="radio" name={name} value={answer} defaultChecked={defaultValue === answer} required />
            <span>{answer}</span>
          </label>
        ))}
      </div>
      <FieldProblemText id={errorId} problem={error} />
    </fieldset>
  );
}
