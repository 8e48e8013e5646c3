import { createContext, useContext } from "react";
import type { Progress } from "./use-form-complete.ts";

/** The form's progress, once JavaScript counts it (null before, and without it). */
export const ProgressContext = createContext<Progress | null>(null);

/**
 * One step of a contribution form: a numbered heading and, with JavaScript, how many of its questions are still
 * unanswered, so a person sees at a glance which part is done. The same markup works without JavaScript.
 */
export function FormSection({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  const progress = useContext(ProgressContext);
  const left = progress?.missing.filter((field) => field.section === id).length;
  return (
    <section id={id} className="form-section" aria-labelledby={`${id}-title`}>
      <div className="form-section-head">
        <h2 id={`${id}-title`} className="form-section-title">
          {title}
        </h2>
        {left === undefined ? null : (
          <p className={left === 0 ? "section-status done" : "section-status"}>
            {left === 0 ? "Done" : `${left} to answer`}
          </p>
        )}
      </div>
      {children}
    </section>
  );
}
