import { useId } from "react";
import type { FieldProblem } from "#app/lib/form-refusal.ts";
import { formMessageId } from "./form-message.tsx";

export { FormMessage, formMessageId } from "./form-message.tsx";

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

/** The class of a field's wrapper: red once the field is refused. */
export function fieldClass(problem: FieldProblem | undefined): string {
  return problem ? "field invalid" : "field";
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
    <div className={fieldClass(error)}>
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
    <div className={fieldClass(error)}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} name={name} {...problemAttributes(error, `${id}-error`)} {...textarea} />
      <FieldProblemText id={`${id}-error`} problem={error} />
    </div>
  );
}
