import { useEffect, useId, useRef } from "react";
import type { FieldProblem } from "#app/lib/form-refusal.ts";

/** The message box's id: a field refused for the reason the box says is described by the box. */
export const formMessageId = "form-message";

/**
 * The form's message box: errors are announced to screen readers as they appear, and scrolled into view, since a
 * field refused alone is only marked and the box says why (docs/decisions/0039-a-refusal-is-said-once.md).
 */
export function FormMessage({ error, success }: { error?: string | undefined; success?: string | undefined }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (error) box.current?.scrollIntoView({ block: "nearest" });
  }, [error]);
  if (error) {
    return (
      <div ref={box} id={formMessageId} className="message-box error" role="alert">
        {error}
      </div>
    );
  }
  if (success) {
    return (
      <div className="message-box success" role="status">
        {success}
      </div>
    );
  }
  return null;
}

/**
 * What marks a refused field's control: `aria-invalid`, and a description from the field's own message (`errorId`) or,
 * when the message box says it, from the box; `others` are the descriptions the control always has (hints, counters).
 */
export function problemAttributes(problem: FieldProblem | undefined, errorId: string, ...others: (string | null)[]) {
  const reason = problem === true ? formMessageId : problem ? errorId : null;
  return {
    "aria-invalid": problem ? true : undefined,
    "aria-describedby": [...others, reason].filter(Boolean).join(" ") || undefined,
  };
}

/** A refused field's own message, beside it; nothing when the form's message box says it. */
export function FieldProblemText({ id, problem }: { id: string; problem: FieldProblem | undefined }) {
  return typeof problem === "string" && problem ? (
    <p id={id} className="field-error">
      {problem}
    </p>
  ) : null;
}

type FieldProps = {
  label: string;
  name: string;
  type?: string;
  /** The field's message, or `true` to mark it when the form's message box says what is wrong. */
  error?: FieldProblem | undefined;
  hint?: string;
} & Omit<React.InputHTMLAttributes<HTMLInputElement>, "name" | "type">;

/** A labelled input whose error is tied to it for assistive technology. */
export function Field({ label, name, type = "text", error, hint, ...input }: FieldProps) {
  const id = useId();
  return (
    <div className={error ? "field invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      <input
        id={id}
        name={name}
        type={type}
        {...problemAttributes(error, `${id}-error`, hint ? `${id}-hint` : null)}
        {...input}
      />
      <FieldProblemText id={`${id}-error`} problem={error} />
    </div>
  );
}

type TextAreaFieldProps = {
  label: string;
  name: string;
  error?: FieldProblem | undefined;
} & Omit<React.TextareaHTMLAttributes<HTMLTextAreaElement>, "name">;

/** A labelled text area whose error is tied to it for assistive technology. */
export function TextAreaField({ label, name, error, ...textarea }: TextAreaFieldProps) {
  const id = useId();
  return (
    <div className={error ? "field invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} name={name} {...problemAttributes(error, `${id}-error`)} {...textarea} />
      <FieldProblemText id={`${id}-error`} problem={error} />
    </div>
  );
}
