import type { MissingField } from "./use-form-complete.ts";

/**
 * The form's Submit, kept in view at the bottom of the screen, with what is still missing beside it while it is
 * disabled: each item links to its question, so nobody scrolls back to look for it.
 */
export function SubmitRow({
  canSubmit,
  missing,
  busy,
}: {
  canSubmit: boolean;
  missing: readonly MissingField[];
  busy: boolean;
}) {
  return (
    <div className="submit-row">
      <button type="submit" className="button" disabled={!canSubmit || busy} aria-describedby="still-missing">
        Submit
      </button>
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
