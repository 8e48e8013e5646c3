import type { Progress } from "./use-form-complete.ts";

/**
 * The form's Submit, kept in view at the bottom of the screen, with how far along the form is and, while Submit is
 * disabled, what is still missing: each item links to its question, so nobody scrolls back to look for it.
 */
export function SubmitRow({
  canSubmit,
  progress,
  busy,
}: {
  canSubmit: boolean;
  progress: Progress | null;
  busy: boolean;
}) {
  const missing = progress?.missing ?? [];
  const answered = progress ? progress.total - missing.length : 0;
  return (
    <div className="submit-row">
      <button type="submit" className="button" disabled={!canSubmit || busy} aria-describedby="still-missing">
        Submit
      </button>
      {progress ? (
        <div className="form-progress">
          <progress id="form-progress" max={progress.total} value={answered} aria-label="Questions answered" />
          <span aria-hidden="true">
            {answered} of {progress.total}
          </span>
        </div>
      ) : null}
      <div id="still-missing" className="still-missing" aria-live="polite">
        {missing.length > 0 ? (
          <>
            <span className="still-missing-title">Still missing ({missing.length}):</span>
            <ul>
              {missing.map((field) => (
                <li key={field.target || field.label}>
                  {field.target ? <a href={`#${field.target}`}>{field.label}</a> : field.label}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </div>
    </div>
  );
}
